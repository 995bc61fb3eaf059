//! The checkpoint of an out-of-core build: the manifest naming the files that hold its state, how it is written
//! and committed (atomically, synced), read back and checked, and the names of the files it refers to.

use super::*;

/// A checkpoint: everything needed to carry on from the start of `generation`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Checkpoint {
    pub(super) fingerprint: u64,
    pub(super) size: u64,
    /// The cells' width.
    pub(super) width: CellWidth,
    /// Slices hold `1 << shift` indices.
    pub(super) shift: u32,
    pub(super) generation: u32,
    /// The frontier of `generation` (its scheduled values included) and its length.
    pub(super) frontier_tag: u64,
    pub(super) frontier_len: u64,
    /// Positions resolved before `generation`.
    pub(super) resolved: u64,
    pub(super) refuting_exits: bool,
    /// Whether the refuters file says which positions have such exits (checkpoints of older builds do not have it:
    /// then every loss is expanded again for its floor).
    pub(super) refuters: bool,
    /// The tag of the next files to be written is `epoch + 1`.
    pub(super) epoch: u64,
    /// Per slice, the tag of its cells file.
    pub(super) cell_tags: Vec<u64>,
    /// Per slice, the length of its cells file (packed, see [`crate::packed`]).
    pub(super) cell_lengths: Vec<u64>,
    /// Per slice, how many values were scheduled at each generation after `generation`.
    pub(super) seeds: Vec<BTreeMap<u32, u64>>,
}

impl Checkpoint {
    /// A tag never used before for a file of this build.
    pub(super) fn new_tag(&mut self) -> u64 {
        self.epoch += 1;
        self.epoch
    }

    pub(super) fn slices(&self) -> usize {
        self.cell_tags.len()
    }

    pub(super) fn slice_range(&self, slice: usize) -> (u64, usize) {
        let base = (slice as u64) << self.shift;
        let len = (self.size - base).min(1 << self.shift);
        (base, len as usize)
    }

    pub(super) fn references(&self, name: &str) -> bool {
        name == MANIFEST
            || (self.refuters && name == REFUTERS)
            || name == frontier_name(self.frontier_tag)
            || self
                .cell_tags
                .iter()
                .enumerate()
                .any(|(s, &tag)| name == cells_name(s, tag))
    }

    /// The earliest generation with scheduled values, in any slice.
    pub(super) fn next_scheduled(&self) -> Option<u32> {
        self.seeds
            .iter()
            .filter_map(|m| m.keys().next().copied())
            .min()
    }

    pub(super) fn to_text(&self) -> String {
        let mut text = format!(
            "{MANIFEST_VERSION}\nfingerprint {:016x}\nsize {}\nbits {}\nshift {}\ngeneration {}\nfrontier {} {}\n\
             resolved {}\nrefuting {}\nepoch {}\ncells",
            self.fingerprint,
            self.size,
            self.width.label(),
            self.shift,
            self.generation,
            self.frontier_tag,
            self.frontier_len,
            self.resolved,
            match (self.refuting_exits, self.refuters) {
                (false, _) => 0,
                (true, false) => 1,
                (true, true) => 2,
            },
            self.epoch
        );
        for tag in &self.cell_tags {
            text.push_str(&format!(" {tag}"));
        }
        text.push_str("\nlengths");
        for length in &self.cell_lengths {
            text.push_str(&format!(" {length}"));
        }
        text.push('\n');
        for (slice, seeds) in self.seeds.iter().enumerate() {
            if seeds.is_empty() {
                continue;
            }
            text.push_str(&format!("seeds {slice}"));
            for (g, n) in seeds {
                text.push_str(&format!(" {g}:{n}"));
            }
            text.push('\n');
        }
        let sum = checksum(text.as_bytes());
        text.push_str(&format!("checksum {sum:016x}\n"));
        text
    }

    pub(super) fn from_text(text: &str) -> Result<Checkpoint, String> {
        let body_end = text
            .rfind("checksum ")
            .ok_or("the manifest has no checksum")?;
        let (body, tail) = text.split_at(body_end);
        let sum = u64::from_str_radix(tail.trim_start_matches("checksum ").trim(), 16)
            .map_err(|_| "the manifest's checksum is malformed")?;
        if sum != checksum(body.as_bytes()) {
            return Err("the manifest's checksum does not match".into());
        }
        let mut lines = body.lines();
        if lines.next() != Some(MANIFEST_VERSION) {
            return Err("the manifest is of another version".into());
        }
        let mut fields: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut seeds_lines = Vec::new();
        for line in lines {
            let mut words = line.split_whitespace();
            let key = words.next().ok_or("the manifest has an empty line")?;
            if key == "seeds" {
                seeds_lines.push(words.collect::<Vec<_>>());
            } else {
                fields.insert(key, words.collect());
            }
        }
        let word = |key: &str, i: usize| -> Result<&str, String> {
            fields
                .get(key)
                .and_then(|w| w.get(i).copied())
                .ok_or_else(|| format!("the manifest lacks {key}"))
        };
        let num = |key: &str, i: usize| -> Result<u64, String> {
            word(key, i)?
                .parse()
                .map_err(|_| format!("the manifest's {key} is malformed"))
        };
        let fingerprint = u64::from_str_radix(word("fingerprint", 0)?, 16)
            .map_err(|_| "the manifest's fingerprint is malformed")?;
        let cell_tags = fields
            .get("cells")
            .ok_or("the manifest lacks cells")?
            .iter()
            .map(|w| w.parse().map_err(|_| "the manifest's cells are malformed"))
            .collect::<Result<Vec<u64>, _>>()?;
        let cell_lengths = fields
            .get("lengths")
            .ok_or("the manifest lacks lengths")?
            .iter()
            .map(|w| {
                w.parse()
                    .map_err(|_| "the manifest's lengths are malformed")
            })
            .collect::<Result<Vec<u64>, _>>()?;
        let mut seeds = vec![BTreeMap::new(); cell_tags.len()];
        for line in seeds_lines {
            let slice: usize = line
                .first()
                .and_then(|w| w.parse().ok())
                .filter(|&s| s < cell_tags.len())
                .ok_or("the manifest's seeds are malformed")?;
            for pair in &line[1..] {
                let (g, n) = pair
                    .split_once(':')
                    .and_then(|(g, n)| Some((g.parse().ok()?, n.parse().ok()?)))
                    .ok_or("the manifest's seeds are malformed")?;
                seeds[slice].insert(g, n);
            }
        }
        let checkpoint = Checkpoint {
            fingerprint,
            size: num("size", 0)?,
            width: CellWidth::from_label(word("bits", 0)?)
                .ok_or("the manifest's bits are malformed")?,
            shift: num("shift", 0)? as u32,
            generation: num("generation", 0)? as u32,
            frontier_tag: num("frontier", 0)?,
            frontier_len: num("frontier", 1)?,
            resolved: num("resolved", 0)?,
            refuting_exits: num("refuting", 0)? >= 1,
            refuters: num("refuting", 0)? == 2,
            epoch: num("epoch", 0)?,
            cell_tags,
            cell_lengths,
            seeds,
        };
        let slices_needed = if checkpoint.shift > MAX_SLICE_SHIFT {
            None
        } else {
            Some(checkpoint.size.div_ceil(1 << checkpoint.shift))
        };
        if slices_needed != Some(checkpoint.cell_tags.len() as u64)
            || checkpoint.cell_lengths.len() != checkpoint.cell_tags.len()
        {
            return Err("the manifest's slices do not cover the table".into());
        }
        Ok(checkpoint)
    }
}

pub(super) fn cells_name(slice: usize, tag: u64) -> String {
    format!("{PREFIX}cells-{slice}-{tag}")
}

pub(super) fn frontier_name(tag: u64) -> String {
    format!("{PREFIX}frontier-{tag}")
}

pub(super) fn bucket_name(slice: usize) -> String {
    format!("{PREFIX}bucket-{slice}")
}

/// FNV-1a over the bytes: the manifest's own checksum and the game's fingerprint.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A fingerprint of the game and the convention: the size, the move bound and the moves of up to 257 positions
/// spread over the table. A checkpoint is only resumed by a build with the same fingerprint.
pub(super) fn fingerprint<G: Game>(game: &G, convention: PlayConvention) -> u64 {
    let size = game.size();
    let mut text = format!("{size} {} {convention:?}", game.max_moves());
    if size > 0 {
        for k in 0..=256u64 {
            let index = ((u128::from(size - 1) * u128::from(k)) / 256) as u64;
            let node = game.expand(index, |m| match m {
                Move::To(q) => text.push_str(&format!(" {q}")),
                Move::Exit(v) => text.push_str(&format!(" {v:?}")),
            });
            let node = match node {
                Node::Hole => "h".to_string(),
                Node::Terminal(v) => format!("t{v:?}"),
                Node::Playable => "p".to_string(),
            };
            text.push_str(&node);
        }
    }
    checksum(text.as_bytes())
}

pub(super) fn read_manifest(dir: &Path) -> Result<Option<Checkpoint>, EngineError> {
    match fs::read_to_string(dir.join(MANIFEST)) {
        Ok(text) => Checkpoint::from_text(&text)
            .map(Some)
            .map_err(EngineError::Checkpoint),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

impl<G: Game> Sliced<'_, G> {
    /// Removes the engine's files of the work directory whose names `doomed` picks.
    pub(super) fn remove_files(&self, doomed: impl Fn(&str) -> bool) -> io::Result<()> {
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with(PREFIX) && doomed(name) {
                fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }

    /// Checks that the files a checkpoint names are there, whole.
    pub(super) fn check_files(&self, state: &Checkpoint) -> Result<(), EngineError> {
        let mut expected = vec![(frontier_name(state.frontier_tag), state.frontier_len * 8)];
        if state.refuters {
            expected.push((REFUTERS.to_string(), state.size.div_ceil(64) * 8));
        }
        for (s, (&tag, &length)) in state.cell_tags.iter().zip(&state.cell_lengths).enumerate() {
            expected.push((cells_name(s, tag), length));
        }
        for (name, len) in expected {
            let found = fs::metadata(self.path(&name)).map(|m| m.len()).ok();
            if found != Some(len) {
                return Err(EngineError::Checkpoint(format!(
                    "{name} is missing or has the wrong length"
                )));
            }
        }
        Ok(())
    }

    /// Commits a checkpoint and removes what it no longer names. The data files and the manifest's temporary file
    /// reach the disk in one `syncfs` (one call instead of one per file), then the rename makes the manifest the
    /// checkpoint, and a sync of the directory makes the rename durable.
    pub(super) fn commit(&mut self, state: &Checkpoint) -> Result<(), EngineError> {
        let temporary = format!("{MANIFEST}.tmp");
        self.write_file(&temporary, state.to_text().as_bytes())?;
        let dir = File::open(&self.dir)?;
        if self.sync {
            sync_file_system(&dir)?;
        }
        fs::rename(self.path(&temporary), self.path(MANIFEST))?;
        if self.sync {
            dir.sync_all()?;
        }
        self.report.checkpoints += 1;
        self.committed = Some(state.clone());
        self.last_commit = Instant::now();
        self.remove_files(|name| !state.references(name))?;
        self.step()
    }

    /// Ends a generation: commits a checkpoint when the last one is old enough, or else only removes the files that
    /// neither the last checkpoint nor the current state needs.
    pub(super) fn checkpoint<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
    ) -> Result<(), EngineError> {
        // With many slices resident, a checkpoint writes them all: wait at least four times as long as the last one
        // took, so that checkpoints never take more than a fifth of the time.
        let interval = match self.commit_interval.is_zero() {
            true => Duration::ZERO,
            false => self.commit_interval.max(self.last_commit_cost * 4),
        };
        if self.last_commit.elapsed() >= interval {
            let started = Instant::now();
            self.flush(state, resident)?;
            self.commit(state)?;
            self.last_commit_cost = started.elapsed();
            Ok(())
        } else {
            let committed = self.committed.take();
            let kept = |name: &str| {
                state.references(name) || committed.as_ref().is_some_and(|c| c.references(name))
            };
            let removed = self.remove_files(|name| !kept(name));
            self.committed = committed;
            removed?;
            self.step()
        }
    }
}
