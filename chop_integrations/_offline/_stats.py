"""Mean and population standard deviation of floats, exact as :mod:`statistics` computes them, without fractions.

The lexical tiling compares each depth score with ``mean + 0.5 * pstdev`` of a window's scores. ``statistics``
gets both from exact sums held as :class:`~fractions.Fraction` objects (correctly rounded; it is what decides
which gaps are cuts, so the figures must stay the same to the last bit), which costs more than the tiling itself.
A float is an integer over a power of two: over their common power of two the sums are plain integers, and
integer division and :func:`math.isqrt` round them correctly too.
"""

from __future__ import annotations

import math
import sys

__all__ = ["mean_and_pstdev"]

#: The bits of the integer square root before its rounding to a float (that of ``statistics``: 2 * 53 + 3).
_SQRT_BITS = 2 * sys.float_info.mant_dig + 3


def mean_and_pstdev(values: list[float]) -> tuple[float, float]:
    """``(statistics.mean(values), statistics.pstdev(values))`` for finite floats (at least one), bit for bit.

    Both are correctly rounded from the exact figures, as :mod:`statistics` rounds them from Python 3.11 on.
    """
    ratios = [value.as_integer_ratio() for value in values]
    shift = max(den.bit_length() for _, den in ratios) - 1  # every value is num / 2**shift for an integer num
    nums = [num << (shift - den.bit_length() + 1) for num, den in ratios]
    count = len(nums)
    total = sum(nums)
    mean = total / (count << shift)  # (int / int rounds correctly)
    spread = count * sum([num * num for num in nums]) - total * total  # count² · 4**shift · variance
    scale = count * count << 2 * shift
    common = math.gcd(spread, scale)
    return mean, _sqrt_of_fraction(spread // common, scale // common)


def _sqrt_of_fraction(num: int, den: int) -> float:
    """The square root of ``num / den`` as a float, correctly rounded (round to odd, then to the nearest float)."""
    q = (num.bit_length() - den.bit_length() - _SQRT_BITS) // 2
    if q >= 0:
        return float(_odd_root(num, den << 2 * q) << q)
    return _odd_root(num << -2 * q, den) / (1 << -q)


def _odd_root(num: int, den: int) -> int:
    """The integer square root of ``num / den``, its last bit set when inexact (round to odd)."""
    root = math.isqrt(num // den)
    return root | (root * root * den != num)
