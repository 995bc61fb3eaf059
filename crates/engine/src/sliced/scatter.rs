//! The first half of a generation out of core: the frontier walked back chunk by chunk, updates of resident slices
//! applied at once, the others written to one bucket file per target slice.

use super::*;

/// What one thread's share of a frontier chunk produced in [`Sliced::scatter`]: bucket entries per slice that is not
/// resident (as the bytes of their `u32`s), whether a cell of each resident slice changed, and the later losses to
/// schedule, by slice.
pub(super) struct Walked {
    pub(super) buckets: Vec<Vec<u8>>,
    pub(super) changed: Vec<bool>,
    /// Positions of resident slices resolved at g + 1, as frontier entries.
    pub(super) resolved: Vec<u64>,
    pub(super) deferred: Vec<(usize, u32)>,
}

impl Walked {
    pub(super) fn new(slices: usize) -> Walked {
        Walked {
            buckets: vec![Vec::new(); slices],
            changed: vec![false; slices],
            resolved: Vec::new(),
            deferred: Vec::new(),
        }
    }

    /// Bucket entries, all slices together.
    pub(super) fn entries(&self) -> u64 {
        self.buckets.iter().map(|b| b.len() as u64 / 4).sum()
    }

    pub(super) fn merge(mut self, other: Walked) -> Walked {
        for (x, mut y) in self.buckets.iter_mut().zip(other.buckets) {
            x.append(&mut y);
        }
        for (x, y) in self.changed.iter_mut().zip(other.changed) {
            *x |= y;
        }
        self.resolved.extend(other.resolved);
        self.deferred.extend(other.deferred);
        self
    }
}

/// The positions a generation resolves at g + 1, gathered by slice as the updates resolve them, so that the next
/// frontier need not be read off whole slices (in the long tail of a build, a few thousand positions among
/// billions of cells). Beyond `cap` entries they are given up, and the touched slices are read instead.
pub(super) struct Resolved {
    pub(super) by_slice: Vec<Vec<u64>>,
    pub(super) shift: u32,
    pub(super) entries: u64,
    pub(super) cap: u64,
    pub(super) complete: bool,
}

impl Resolved {
    pub(super) fn new(slices: usize, shift: u32, cap: u64) -> Resolved {
        Resolved {
            by_slice: vec![Vec::new(); slices],
            shift,
            entries: 0,
            cap,
            complete: true,
        }
    }

    /// Adds frontier entries (`index << 1 | won`).
    pub(super) fn add(&mut self, entries: Vec<u64>) {
        if !self.complete {
            return;
        }
        self.entries += entries.len() as u64;
        if self.entries > self.cap {
            self.complete = false;
            self.by_slice = Vec::new();
            return;
        }
        for entry in entries {
            self.by_slice[(entry >> 1 >> self.shift) as usize].push(entry);
        }
    }

    /// The entries of `slice`, unsorted, if every one was gathered.
    pub(super) fn take(&mut self, slice: usize) -> Option<Vec<u64>> {
        match self.complete {
            true => Some(std::mem::take(&mut self.by_slice[slice])),
            false => None,
        }
    }
}

impl<G: Game> Sliced<'_, G> {
    /// Generation `later` comes with an empty frontier but values scheduled for it: reads the slices that have some.
    pub(super) fn publish<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        later: u32,
    ) -> Result<(), EngineError> {
        let tag = state.new_tag();
        let mut frontier = FrontierWriter::create(&self.path(&frontier_name(tag)))?;
        for slice in 0..state.slices() {
            if state.seeds[slice].remove(&later).is_none() {
                continue;
            }
            let (base, len) = state.slice_range(slice);
            let slot = self.load(state, resident, slice)?;
            write_due(&resident.slots[slot].cells, base, len, later, &mut frontier)?;
        }
        state.frontier_len = frontier.finish(&mut self.report)?;
        state.frontier_tag = tag;
        state.generation = later;
        Ok(())
    }

    /// Walks back from the frontier, from its entry `start` on, until the buckets hold a round's worth of updates
    /// (`round_bytes`) or the frontier ends. An update of a resident slice is applied to its cells at once, as the
    /// in-memory walk does (and its slice marked in `touched`); the others go into one bucket per target slice.
    /// Returns the buckets' entry counts and where the next round starts (the frontier's length after the last
    /// round).
    pub(super) fn scatter<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        start: u64,
        touched: &mut [bool],
        resolved: &mut Resolved,
    ) -> Result<(Vec<u64>, u64), EngineError> {
        let game = self.game;
        let slices = state.slices();
        let shift = state.shift;
        let g = state.generation;
        let refuting_exits = state.refuting_exits;
        let round_entries = (self.round_bytes / 4).max(1);
        // Which slot holds each slice: nothing is loaded or evicted while the frontier is walked.
        let slot_of: Vec<Option<usize>> = (0..slices).map(|s| resident.slot_of(s)).collect();
        let slots = &resident.slots;
        let mut buckets = BucketWriters::new(&self.dir, slices, bucket_buffer(self.budget, slices));
        // The resident slices this round updated.
        let mut updated = vec![false; slices];
        let mut file = File::open(self.path(&frontier_name(state.frontier_tag)))?;
        file.seek(SeekFrom::Start(start * 8))?;
        let mut bytes = vec![0u8; FRONTIER_CHUNK * 8];
        let mut remaining = (state.frontier_len - start) as usize;
        let mut walked = start;
        // Chunks no longer than a round (which matters only for the tiny rounds of tests).
        let chunk = FRONTIER_CHUNK.min(round_entries as usize);
        let walk_chunk = |bytes: &[u8]| {
            bytes
                .par_chunks_exact(8)
                .with_min_len(64)
                .fold(
                    || Walked::new(slices),
                    |mut out, entry| {
                        let entry = u64::from_ne_bytes(entry.try_into().expect("8 bytes"));
                        let won = entry & 1 == 1;
                        game.unmoves(entry >> 1, |p| {
                            let slice = (p >> shift) as usize;
                            let offset = (p & ((1 << shift) - 1)) as usize;
                            let Some(slot) = slot_of[slice] else {
                                let entry = (offset as u32) << 1 | u32::from(won);
                                out.buckets[slice].extend_from_slice(&entry.to_ne_bytes());
                                return;
                            };
                            let slot = &slots[slot];
                            let base = (slice as u64) << shift;
                            let effect = update::<_, true>(
                                won,
                                &slot.cells,
                                offset,
                                g,
                                || moves_to_refute(game, p),
                                || floor_of(game, p, &slot.refuters, refuting_exits, base, offset),
                            );
                            match effect {
                                Effect::Resolved => out.resolved.push(p << 1 | u64::from(!won)),
                                Effect::Deferred(floor) => out.deferred.push((slice, floor)),
                                Effect::Settled | Effect::Counted => {}
                            }
                            let changed = effect.changed();
                            out.changed[slice] |= changed;
                        });
                        out
                    },
                )
                .reduce(|| Walked::new(slices), Walked::merge)
        };
        // The bucket entries of one chunk are written while the next chunk is walked.
        let mut pending: Option<Walked> = None;
        loop {
            let entries = buckets.entries() + pending.as_ref().map_or(0, Walked::entries);
            let n = match entries < round_entries {
                true => remaining.min(chunk),
                false => 0,
            };
            if n == 0 && pending.is_none() {
                break;
            }
            file.read_exact(&mut bytes[..n * 8])?;
            self.report.bytes_read += n as u64 * 8;
            remaining -= n;
            walked += n as u64;
            let to_write = pending.take();
            let (walk, written) = rayon::join(
                || (n > 0).then(|| walk_chunk(&bytes[..n * 8])),
                || match &to_write {
                    Some(walk) => buckets.append(&walk.buckets),
                    None => Ok(0),
                },
            );
            self.report.bytes_written += written?;
            if let Some(mut walk) = walk {
                for (slice, &changed) in walk.changed.iter().enumerate() {
                    updated[slice] |= changed;
                }
                resolved.add(std::mem::take(&mut walk.resolved));
                for &(slice, floor) in &walk.deferred {
                    *state.seeds[slice].entry(floor).or_default() += 1;
                }
                pending = Some(walk);
                self.step()?;
            }
        }
        for (slice, &was_updated) in updated.iter().enumerate() {
            if let (true, Some(slot)) = (was_updated, slot_of[slice]) {
                resident.slots[slot].dirty = true;
                touched[slice] = true;
            }
        }
        Ok((buckets.finish()?, walked))
    }
}
