//! Where a table's writer reads its values from: a function of the index, or solved values read a run at a time.
//!
//! The writer visits every index several times (counting, the WDL file, the distance file). A function called on
//! each index costs a call and, for the engine's solution, the choice of its cells' width every time, and a value's
//! outcome is a branch that mispredicts on mixed outcomes: KQRvKR's 220 M indices spent about 4 s of a core in
//! those calls (`perf`, 2 threads). [`Runs`] reads a run of values at once, as codes ([`Value::code`], [`Values::codes`]), and the
//! writer's loops count and encode codes by arithmetic.

use retro_game::{Index, Value, Values};

/// The values of a table's indices as the writer reads them.
pub trait ValueSource: Sync {
    /// The value at `index`; `None` for a hole.
    fn value(&self, index: Index) -> Option<Value>;

    /// The values of the indices from `first` on as codes ([`Value::code`]), one for each entry of `out`.
    fn codes(&self, first: Index, out: &mut [u64]) {
        for (index, code) in (first..).zip(out) {
            *code = Value::code(self.value(index));
        }
    }
}

impl<F: Fn(Index) -> Option<Value> + Sync> ValueSource for F {
    fn value(&self, index: Index) -> Option<Value> {
        self(index)
    }
}

/// Solved values ([`Values`]) read a run at a time.
pub struct Runs<'a, T: ?Sized>(pub &'a T);

// By hand: a derive would ask `T: Copy`, and only the reference is copied.
impl<T: ?Sized> Clone for Runs<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Runs<'_, T> {}

impl<T: Values + ?Sized> ValueSource for Runs<'_, T> {
    fn value(&self, index: Index) -> Option<Value> {
        self.0.value(index)
    }

    fn codes(&self, first: Index, out: &mut [u64]) {
        self.0.codes(first, out)
    }
}

/// Codes read at a time by [`for_each_code`]: 32 KiB of them, which stay in the first-level cache.
const RUN: usize = 1 << 12;

/// Calls `visit(index, code)` on each index of `range` in order with the code of its value ([`Value::code`]), the
/// codes read a run at a time.
#[inline]
pub(crate) fn for_each_code<V: ValueSource + ?Sized>(
    values: &V,
    range: std::ops::Range<Index>,
    mut visit: impl FnMut(Index, u64),
) {
    for_each_run(values, range, |first, codes| {
        for (index, &code) in (first..).zip(codes) {
            visit(index, code);
        }
    });
}

/// Calls `visit(first, codes)` on consecutive runs of the indices of `range`, in order: the codes of the values
/// ([`Value::code`]) of the indices from `first` on.
#[inline]
pub(crate) fn for_each_run<V: ValueSource + ?Sized>(
    values: &V,
    range: std::ops::Range<Index>,
    mut visit: impl FnMut(Index, &[u64]),
) {
    let mut run = [0; RUN];
    let mut first = range.start;
    while first < range.end {
        let len = (range.end - first).min(RUN as Index) as usize;
        let run = &mut run[..len];
        values.codes(first, run);
        visit(first, run);
        first += len as Index;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values that only answer one index at a time, and count how often they were asked.
    struct OneByOne(std::sync::atomic::AtomicU64);

    impl Values for OneByOne {
        fn value(&self, index: Index) -> Option<Value> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            match index % 3 {
                0 => None,
                1 => Some(Value::win(index as u32)),
                _ => Some(Value::loss(index as u32)),
            }
        }
    }

    #[test]
    fn runs_visit_every_index_once_in_order_across_run_boundaries() {
        let source = OneByOne(Default::default());
        for range in [0..0, 5..6, 3..RUN as Index, 7..3 * RUN as Index + 11] {
            let before = source.0.load(std::sync::atomic::Ordering::Relaxed);
            let mut seen = Vec::new();
            for_each_code(&Runs(&source), range.clone(), |i, code| {
                seen.push((i, code))
            });
            let expected: Vec<_> = range
                .clone()
                .map(|i| (i, Value::code(source.value(i))))
                .collect();
            assert_eq!(seen, expected, "{range:?}");
            let asked = source.0.load(std::sync::atomic::Ordering::Relaxed) - before;
            // Each index once for the runs and once for the expectation.
            assert_eq!(asked, 2 * (range.end - range.start), "{range:?}");
        }
        let closure = |i: Index| Some(Value::win(i as u32));
        let mut seen = Vec::new();
        for_each_code(&closure, 10..13, |i, code| seen.push((i, code)));
        assert_eq!(seen, [10, 11, 12].map(|i| (i, Value::code(closure(i)))));
    }
}
