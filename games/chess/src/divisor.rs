//! Division by a number fixed when a table is set up, without the processor's divide instruction.
//!
//! Decoding an index splits it into mixed-radix digits (side to move, king pair, one digit per group of pieces), a
//! division each. A 64-bit `div` takes tens of cycles and every position of every generation is decoded, so the
//! digits' weights are turned once into [`Divisor`]s that divide by two multiplications (Lemire, Kaser and Kurz,
//! "Faster Remainder by Direct Computation", 2019: with a 128-bit reciprocal the quotient is exact for every 64-bit
//! numerator).

/// A fixed divisor `d ≥ 1`, with its 128-bit reciprocal `⌊(2^128 − 1) / d⌋ + 1` (unused when `d` is 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    d: u64,
    reciprocal: u128,
}

impl Divisor {
    pub(crate) fn new(d: u64) -> Divisor {
        assert!(d > 0, "division by zero");
        Divisor {
            d,
            reciprocal: if d == 1 {
                0
            } else {
                u128::MAX / u128::from(d) + 1
            },
        }
    }

    /// `n / d`: the high 64 bits of the 192-bit product `reciprocal · n`.
    #[inline(always)]
    pub(crate) fn quotient(&self, n: u64) -> u64 {
        if self.d == 1 {
            return n;
        }
        let low = (self.reciprocal as u64 as u128 * u128::from(n)) >> 64;
        let high = (self.reciprocal >> 64) * u128::from(n);
        ((high + low) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotients_are_exact_at_the_edges_and_at_random() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut divisors = vec![1, 2, 3, 7, 61, 62, 1891, 226_920, 462 * 238_328, u64::MAX];
        divisors.extend((0..200).map(|_| next() >> (next() % 64)).filter(|&d| d > 0));
        for d in divisors {
            let divisor = Divisor::new(d);
            let mut numerators = vec![0, 1, d - 1, d, d.wrapping_add(1), u64::MAX, u64::MAX - 1];
            numerators.extend((0..500).map(|_| next() >> (next() % 64)));
            for n in numerators {
                assert_eq!(divisor.quotient(n), n / d, "{n} / {d}");
            }
        }
    }
}
