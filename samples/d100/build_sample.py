"""Build the d100 sample campaign: `python samples/d100/build_sample.py`.

"La casa Ibarra": an investigation and a fight over several scenes, with luck
spent (and refunded), a fumble, a special success, aimed fire, a dodge, first
aid, a panic, psychotherapy, rest and medicine. Every die is given as a face
so the log is the same every time; it is written to campaign.jsonl beside
this script via Ledger.export.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ledger.campaign import Ledger
from ledger.systems.d100 import commands as c

HERE = Path(__file__).resolve().parent
NAME = "la-casa-ibarra"

ANA = {"TAM": 11, "CON": 12, "FUE": 10, "INT": 15, "EDU": 16, "DES": 12, "CAR": 13, "POD": 12}
BRUNO = {"TAM": 14, "CON": 13, "FUE": 14, "INT": 12, "EDU": 17, "DES": 9, "CAR": 10, "POD": 9}


def build(book: Ledger) -> None:
    def do(command: c.Command, who: str | None = None, faces: list[int] | None = None) -> None:
        book.execute(command, NAME, faces=faces, actor=who)

    book.new_campaign("d100", NAME, seed=1923)
    do(
        c.CreateCharacter(
            name="Ana",
            characteristics=ANA,
            skills={
                "Investigar": 60,
                "Trepar": 40,
                "Armas de fuego": 45,
                "Esquivar": 40,
                "Primeros auxilios": 50,
                "Divisar": 55,
            },
        )
    )
    do(
        c.CreateCharacter(
            name="Bruno",
            characteristics=BRUNO,
            skills={"Medicina": 65, "Escuchar": 40, "Psicoterapia": 45, "Pelea": 50},
            points={"valor": 10},
        )
    )
    book.note("Escena 1: la biblioteca municipal, planos de la casa Ibarra", NAME)
    do(c.Test(skill="Investigar"), "Ana", [23])  # special: 23 <= 30
    do(c.Test(skill="Idea"), "Bruno", [41])
    book.note("Escena 2: de noche, el muro del jardin", NAME)
    do(c.Test(skill="Trepar"), "Ana", [47])  # failure by 7
    do(c.SpendLuck(), "Ana")  # 7 luck: a success
    do(c.Test(skill="Escuchar"), "Bruno", [98])  # fumble (Escuchar 40 fumbles at 98)
    do(c.Test(skill="Divisar", half=True), "Ana", [31])  # hard: 28, failed by 3
    do(c.SpendLuck(), "Ana")
    do(c.RefundLuck(), "Ana")  # the director: the window was open anyway
    book.note("Escena 3: el sotano, lo que queda del senor Ibarra", NAME)
    do(c.Horror(amount=6, cause="el cadaver del sotano"), "Ana")
    do(c.Horror(amount=10, cause="el cadaver del sotano"), "Bruno")  # valor 0: panic
    book.note("Escena 4: el guardian ataca", NAME)
    do(c.DeclareRound(actions=("Apuntar",), attacks=("Armas de fuego",), defense="esquivar"), "Ana")
    do(c.DeclareRound(option="run", defense="esquivar"), "Bruno")
    do(c.Aim(), "Ana")
    do(c.Test(skill="Armas de fuego", attack="ranged", aimed=True), "Ana", [30])
    do(c.Dodge(against="success"), "Ana", [35])  # dodge success cancels the guardian's blow
    do(c.DeclareRound(attacks=("Armas de fuego",), actions=("Salir",), defense="esquivar"), "Ana")
    do(c.Steady(points=2), "Ana")
    do(c.Test(skill="Armas de fuego", attack="ranged"), "Ana", [62])  # 45+20: a success
    do(c.Dodge(against="special"), "Ana", [30])  # success does not stop a special
    do(c.Damage(amount=7, cause="garra del guardian"), "Ana")
    do(c.EndCombat(), "Ana")
    book.note("Escena 5: la huida y la curacion", NAME)
    do(c.Heal(method="firstaid"), "Ana", [18, 2])
    do(c.Fatigue(amount=3, cause="correr hasta el coche"), "Bruno")
    do(c.Rest(minutes=120, everyone=True))
    do(c.Rest(minutes=1440, everyone=True))  # a calm day: valor back, Bruno leaves panic
    do(c.Therapy(patient="Bruno"), "Bruno", [31, 4])  # Psicoterapia 45: 1d6 = 4 valor
    do(c.Heal(method="medicine", patient="Ana"), "Bruno", [12, 5])
    do(c.Test(skill="POD", times=4), "Ana", [44])  # a luck test against POD x4
    do(c.AwardLuck(points=5, reason="la casa Ibarra, resuelta"), "Ana")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        book = Ledger(str(Path(tmp) / "sample.ledger"))
        build(book)
        out = HERE / "campaign.jsonl"
        with out.open("wb") as f:
            n = book.export(f, NAME)
        book.close()
    print(f"wrote {n} events to {out}")


if __name__ == "__main__":
    main()
