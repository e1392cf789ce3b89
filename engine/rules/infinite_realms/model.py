"""Infinite Realms' names and tables: conditions, movement and aim limits, cover, light, the hand weapons."""

from __future__ import annotations

import msgspec

replace = msgspec.structs.replace


STUNNED, DOWN, PRONE, SURPRISED, UNAWARE = "stunned", "down", "prone", "surprised", "unaware"


HALF_AP = "half AP"


BLEEDING = "internal bleeding"


WOUNDED_50, WOUNDED_25 = "wounded (50%)", "wounded (25%)"


CRIPPLED = {
    "right arm": "crippled right arm",
    "left arm": "crippled left arm",
    "right leg": "crippled right leg",
    "left leg": "crippled left leg",
    "castration": "castrated",
}


MOVES = {"run": 10, "dodge_run": 6, "walk": 3}


AIM_MAX = {"melee": 2, "thrown": 3, "missile": 5}


OFFENSE_MODS = {STUNNED: 15, DOWN: 20, PRONE: 30, SURPRISED: 20}


COVER = {"cover 50": -10, "cover 75": -15, "cover 90": -25}


LIGHT = {"day": 0, "overcast": -5, "night": -25, "fog": -25, "pitch black": -50}


PUNCH = {"name": "punch", "kind": "melee", "damage_ps": 5, "critical": 3, "type": "crushing", "hand": True}


KICK = {"name": "kick", "kind": "melee", "damage_ps": 10, "critical": 5, "type": "crushing", "hand": True}
