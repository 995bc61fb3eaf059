//! The order in which a WDL file of format version 8 stores its values: the index's digits in another order.
//!
//! A table's index is often a mixed-radix number (for chess: side to move, king pair, one digit per group of men),
//! and how well a file compresses depends on which digit varies fastest: KBNvKB's WDL file is 35% smaller with Black's
//! bishop as the most significant digit and the side to move as the least (FORMAT.md, *Header, version 8*). A
//! [`ValueOrder`] says where each index's value is stored: at the number its digits make when read in the stored
//! order. Blocks, layouts and everything else are as in version 7, over stored positions instead of indices.

use crate::format::MAX_DIGITS;

/// The index's digits, and the order in which the file stores them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueOrder {
    /// The radices of the index's digits, most significant first; their product is the index size.
    radices: Vec<u64>,
    /// The digits in stored order, the most significant first (a permutation of `0..radices.len()`).
    order: Vec<u8>,
    /// The weight of each digit (in the index's order) in an index.
    index_weights: Vec<u64>,
    /// The weight of each digit (in the index's order) in a stored position.
    stored_weights: Vec<u64>,
}

impl ValueOrder {
    /// The order `order` (digit numbers, most significant first) of an index of digits `radices`; `None` unless
    /// there are 2 to [`MAX_DIGITS`] digits, every radix is at least 1, their product fits 64 bits, and `order` is a
    /// permutation of the digits.
    pub fn new(radices: &[u64], order: &[u8]) -> Option<ValueOrder> {
        let d = radices.len();
        if !(2..=MAX_DIGITS).contains(&d) || order.len() != d || radices.contains(&0) {
            return None;
        }
        radices.iter().try_fold(1u64, |p, &r| p.checked_mul(r))?;
        let mut seen = [false; MAX_DIGITS];
        for &digit in order {
            let seen = seen
                .get_mut(usize::from(digit))
                .filter(|_| usize::from(digit) < d)?;
            if std::mem::replace(seen, true) {
                return None;
            }
        }
        let mut index_weights = vec![1u64; d];
        for k in (0..d - 1).rev() {
            index_weights[k] = index_weights[k + 1] * radices[k + 1];
        }
        let mut stored_weights = vec![1u64; d];
        let mut weight = 1u64;
        for &digit in order.iter().rev() {
            stored_weights[usize::from(digit)] = weight;
            weight *= radices[usize::from(digit)];
        }
        Some(ValueOrder {
            radices: radices.to_vec(),
            order: order.to_vec(),
            index_weights,
            stored_weights,
        })
    }

    /// The radices of the index's digits, most significant first.
    pub fn radices(&self) -> &[u64] {
        &self.radices
    }

    /// The digits in stored order, most significant first.
    pub fn order(&self) -> &[u8] {
        &self.order
    }

    /// How many values the order numbers: the product of the radices.
    pub fn size(&self) -> u64 {
        self.radices.iter().product()
    }

    /// Whether this is the index's own order (which a file does not name).
    pub fn is_identity(&self) -> bool {
        self.order
            .iter()
            .enumerate()
            .all(|(k, &d)| usize::from(d) == k)
    }

    /// Where the value of `index` (below [`size`](Self::size)) is stored.
    #[inline]
    pub fn stored_position(&self, index: u64) -> u64 {
        let mut rest = index;
        let mut stored = 0;
        for k in (0..self.radices.len()).rev() {
            let radix = self.radices[k];
            stored += (rest % radix) * self.stored_weights[k];
            rest /= radix;
        }
        stored
    }

    /// The index whose value is stored at `stored` (below [`size`](Self::size)): the inverse of
    /// [`stored_position`](Self::stored_position).
    #[inline]
    pub fn index_at(&self, stored: u64) -> u64 {
        let mut rest = stored;
        let mut index = 0;
        for &digit in self.order.iter().rev() {
            let digit = usize::from(digit);
            let radix = self.radices[digit];
            index += (rest % radix) * self.index_weights[digit];
            rest /= radix;
        }
        index
    }
}

impl ValueOrder {
    /// The indices whose values are stored at `stored`, in that order: [`index_at`](Self::index_at) of each, found
    /// by counting up the digits in stored order rather than by dividing.
    pub fn indices(&self, stored: std::ops::Range<u64>) -> impl Iterator<Item = u64> + '_ {
        let mut digits = [0u64; MAX_DIGITS];
        let mut rest = stored.start;
        for &digit in self.order.iter().rev() {
            let digit = usize::from(digit);
            digits[digit] = rest % self.radices[digit];
            rest /= self.radices[digit];
        }
        let mut index: u64 = (0..self.radices.len())
            .map(|k| digits[k] * self.index_weights[k])
            .sum();
        stored.map(move |_| {
            let current = index;
            for &digit in self.order.iter().rev() {
                let digit = usize::from(digit);
                digits[digit] += 1;
                index += self.index_weights[digit];
                if digits[digit] < self.radices[digit] {
                    break;
                }
                index -= self.index_weights[digit] * self.radices[digit];
                digits[digit] = 0;
            }
            current
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stored positions number the indices one to one, in the stored order of the digits.
    #[test]
    fn stored_positions_and_indices_are_inverse() {
        let order = ValueOrder::new(&[2, 3, 5, 4], &[3, 0, 2, 1]).unwrap();
        assert_eq!(order.size(), 120);
        assert!(!order.is_identity());
        let mut seen = [false; 120];
        for index in 0..120 {
            let stored = order.stored_position(index);
            assert!(
                !std::mem::replace(&mut seen[stored as usize], true),
                "{stored}"
            );
            assert_eq!(order.index_at(stored), index);
        }
        // Index digits (1, 2, 4, 3) are 1·60 + 2·20 + 4·4 + 3 = 119; stored as digits 3, 0, 2, 1 of radices 4, 2,
        // 5, 3: ((3·2 + 1)·5 + 4)·3 + 2 = 119. And (0, 0, 0, 1) = 1 is stored as 1·2·5·3 = 30.
        assert_eq!(order.stored_position(119), 119);
        assert_eq!(order.stored_position(1), 30);
        assert!(ValueOrder::new(&[2, 3], &[0, 1]).unwrap().is_identity());
        // Counting up gives the same indices as dividing, from any start.
        for start in [0, 1, 29, 30, 119] {
            let counted: Vec<u64> = order.indices(start..120).collect();
            let divided: Vec<u64> = (start..120).map(|p| order.index_at(p)).collect();
            assert_eq!(counted, divided, "from {start}");
        }
    }

    #[test]
    fn an_order_must_be_a_permutation_of_two_to_eight_digits() {
        assert!(ValueOrder::new(&[2, 3], &[1, 0]).is_some());
        assert!(ValueOrder::new(&[2, 3], &[1, 1]).is_none());
        assert!(ValueOrder::new(&[2, 3], &[0, 2]).is_none());
        assert!(ValueOrder::new(&[2, 3], &[0]).is_none());
        assert!(ValueOrder::new(&[6], &[0]).is_none());
        assert!(ValueOrder::new(&[2, 0], &[1, 0]).is_none());
        assert!(ValueOrder::new(&[u64::MAX, 2], &[1, 0]).is_none());
        assert!(ValueOrder::new(&[2; 9], &[0, 1, 2, 3, 4, 5, 6, 7, 8]).is_none());
    }
}
