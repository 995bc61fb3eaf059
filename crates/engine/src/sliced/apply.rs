//! The second half of a generation out of core: each bucket applied with its slice resident, and the next
//! frontier read off the cells.

use super::*;

/// Bucket entries applied by one rayon task.
const APPLY_TASK: usize = 1 << 12;

/// Appends to `frontier` the indices of a resident slice whose cells hold a value of exactly `g` plies, a block at
/// a time so that the entries never take more memory than a block's worth.
pub(super) fn write_due<W: Width>(
    cells: &Cells<W>,
    base: u64,
    len: usize,
    g: u32,
    frontier: &mut FrontierWriter,
) -> io::Result<()> {
    if g > W::MAX_PLIES {
        return Ok(());
    }
    // Cells by parity hold only one of the two: a win in `g` plies if `g` is odd, else a loss.
    let raw_of = |state: State| W::holds(state).then(|| W::encode(state));
    let (won, lost) = (raw_of(State::Won(g)), raw_of(State::Lost(g)));
    pub(super) const BLOCK: usize = 64 * TASK;
    for block in (0..len).step_by(BLOCK) {
        let end = (block + BLOCK).min(len);
        let found: Vec<Vec<u64>> = (block..end)
            .step_by(TASK)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|start| {
                let mut found = Vec::new();
                for offset in start..(start + TASK).min(end) {
                    let raw = Some(cells.raw(offset));
                    if raw == won || raw == lost {
                        found.push((base + offset as u64) << 1 | u64::from(raw == won));
                    }
                }
                found
            })
            .collect();
        for entries in found {
            frontier.extend(&entries)?;
        }
    }
    Ok(())
}

pub(super) fn merge_counts(mut a: BTreeMap<u32, u64>, b: BTreeMap<u32, u64>) -> BTreeMap<u32, u64> {
    for (g, n) in b {
        *a.entry(g).or_default() += n;
    }
    a
}

impl<G: Game> Sliced<'_, G> {
    /// Applies each slice's bucket with only that slice resident, reads the next frontier off the cells, and commits
    /// generation `g + 1`.
    // A slice's number indexes its bucket, its cells and its schedule alike.
    #[allow(clippy::needless_range_loop)]
    pub(super) fn apply<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        buckets: &[u64],
        last: bool,
        touched: &mut [bool],
        resolved: &mut Resolved,
    ) -> Result<(), EngineError> {
        let game = self.game;
        let g = state.generation;
        let tag = state.new_tag();
        let refuting_exits = state.refuting_exits;
        let mut frontier = match last {
            true => Some(FrontierWriter::create(&self.path(&frontier_name(tag)))?),
            false => None,
        };
        let mut bytes =
            vec![0u8; BUCKET_CHUNK.min(buckets.iter().copied().max().unwrap_or(0) as usize) * 4];
        for slice in 0..state.slices() {
            // The next frontier comes from every slice whose cells an update of any round changed, or that has
            // values scheduled for it: from the positions gathered as they were resolved when that is all, else
            // read off the cells.
            let scheduled = last && state.seeds[slice].remove(&(g + 1)).is_some();
            let read_off = last && touched[slice] && !resolved.complete;
            if buckets[slice] == 0 && !scheduled && !read_off {
                if let (Some(frontier), true) = (frontier.as_mut(), touched[slice]) {
                    let mut entries = resolved.take(slice).expect("all gathered");
                    entries.sort_unstable();
                    frontier.extend(&entries)?;
                }
                continue;
            }
            let (base, len) = state.slice_range(slice);
            let slot = self.load(state, resident, slice)?;
            let mut remaining = buckets[slice] as usize;
            let mut file = match remaining {
                0 => None,
                _ => Some(File::open(self.path(&bucket_name(slice)))?),
            };
            while let Some(file) = file.as_mut().filter(|_| remaining > 0) {
                let n = remaining.min(BUCKET_CHUNK);
                file.read_exact(&mut bytes[..n * 4])?;
                self.report.bytes_read += n as u64 * 4;
                remaining -= n;
                let Slot {
                    cells, refuters, ..
                } = &resident.slots[slot];
                // Whether a cell changed (an update of a position resolved already changes nothing), the
                // positions resolved at g + 1 and the later losses to schedule.
                let (changed, now, deferred) = bytes[..n * 4]
                    .par_chunks(4 * APPLY_TASK)
                    .fold(
                        || (false, Vec::new(), Vec::new()),
                        |(mut changed, mut now, mut deferred): (bool, Vec<u64>, Vec<u32>),
                         chunk| {
                            let entry_at = |k: usize| {
                                u32::from_ne_bytes(
                                    chunk[4 * k..4 * k + 4].try_into().expect("4 bytes"),
                                )
                            };
                            let count = chunk.len() / 4;
                            for k in 0..count {
                                // The entries land all over the slice: the cell a few entries ahead is
                                // prefetched so that the misses of the compare-and-swaps overlap
                                // ([`crate::prefetch`]).
                                if k + crate::prefetch::AHEAD < count {
                                    cells.prefetch(
                                        (entry_at(k + crate::prefetch::AHEAD) >> 1) as usize,
                                    );
                                }
                                let entry = entry_at(k);
                                let offset = (entry >> 1) as usize;
                                let p = base + offset as u64;
                                let won = entry & 1 == 1;
                                let effect = update::<_, true>(
                                    won,
                                    cells,
                                    offset,
                                    g,
                                    || moves_to_refute(game, p),
                                    || floor_of(game, p, refuters, refuting_exits, base, offset),
                                );
                                match effect {
                                    Effect::Resolved => now.push(p << 1 | u64::from(!won)),
                                    Effect::Deferred(floor) => deferred.push(floor),
                                    Effect::Settled | Effect::Counted => {}
                                }
                                changed |= effect.changed();
                            }
                            (changed, now, deferred)
                        },
                    )
                    .reduce(
                        || (false, Vec::new(), Vec::new()),
                        |(a, mut x, mut u), (b, mut y, mut v)| {
                            x.append(&mut y);
                            u.append(&mut v);
                            (a | b, x, u)
                        },
                    );
                resident.slots[slot].dirty |= changed;
                touched[slice] |= changed;
                resolved.add(now);
                for floor in deferred {
                    *state.seeds[slice].entry(floor).or_default() += 1;
                }
            }
            drop(file);
            if let (Some(frontier), true) = (frontier.as_mut(), touched[slice] || scheduled) {
                // The positions resolved by the updates, when they were all gathered; else, or when values were
                // scheduled for g + 1 too, the cells valued g + 1.
                match resolved.take(slice).filter(|_| !scheduled) {
                    Some(mut entries) => {
                        entries.sort_unstable();
                        frontier.extend(&entries)?;
                    }
                    None => write_due(&resident.slots[slot].cells, base, len, g + 1, frontier)?,
                }
            }
            self.step()?;
        }
        for (slice, &entries) in buckets.iter().enumerate() {
            if entries > 0 {
                fs::remove_file(self.path(&bucket_name(slice)))?;
            }
        }
        if let Some(frontier) = frontier {
            state.frontier_len = frontier.finish(&mut self.report)?;
            state.frontier_tag = tag;
            state.generation = g + 1;
        }
        Ok(())
    }
}
