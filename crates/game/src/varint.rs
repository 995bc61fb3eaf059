//! Unsigned LEB128 integers (seven bits a byte, least significant first, the high bit set on all but the last byte),
//! as retro's byte formats write them: the graph file, the table header, the engine's schedule. Each reader decodes
//! them itself, since what it does with a truncated or overlong one (an error of its own kind, or nothing: its own
//! buffer) differs.

/// Appends `value` to `out`.
#[inline]
pub fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    #[test]
    fn values_take_seven_bits_a_byte_low_bits_first() {
        let coded = |value| {
            let mut out = Vec::new();
            super::put(&mut out, value);
            out
        };
        assert_eq!(coded(0), [0]);
        assert_eq!(coded(127), [127]);
        assert_eq!(coded(128), [0x80, 1]);
        assert_eq!(coded(300), [0xac, 0x02]);
        assert_eq!(coded(u64::MAX).len(), 10);
        assert_eq!(coded(u64::MAX)[9], 1);
    }
}
