//! Which slices of cells are in memory: slots filled from the files and written back when another slice needs the
//! slot or a checkpoint is due.

use super::*;

/// The slices of cells in memory: as many as the budget holds ([`resident_slots`]), each in a slot of its own.
pub(super) struct Resident<W: Width> {
    pub(super) slots: Vec<Slot<W>>,
    /// The most slots.
    pub(super) capacity: usize,
    /// Indices per slot (a slice's length, at most).
    pub(super) slot_len: usize,
    /// The slot used last: the one that makes room when every slot is taken. Not the one used first: a generation
    /// visits the slices in order, and with fewer slots than slices, evicting the oldest would miss every time,
    /// while evicting the newest keeps all but one slot's slices resident from one generation to the next.
    pub(super) recent: usize,
}

/// One slice of cells in memory, with its refuter bits.
pub(super) struct Slot<W: Width> {
    pub(super) cells: Cells<W>,
    /// The refuter bits of its slice ([`Sliced::refuters_of`]).
    pub(super) refuters: Option<Vec<u64>>,
    /// Which slice it holds, if any.
    pub(super) slice: Option<usize>,
    /// Whether it changed since it was read.
    pub(super) dirty: bool,
}

/// The loss floor of position `p`, at `offset` in the slice starting at `base`: found again from its moves when it
/// may have an exit into a win for the opponent (its bit in `refuters`, the words of [`Sliced::refuters_of`], or,
/// without them, whether any position of the table has such an exit), else 0.
#[inline]
pub(super) fn floor_of<G: Game>(
    game: &G,
    p: u64,
    refuters: &Option<Vec<u64>>,
    refuting_exits: bool,
    base: u64,
    offset: usize,
) -> u32 {
    let may_resist = match refuters {
        Some(words) => {
            let index = base + offset as u64 - base / 64 * 64;
            words[(index / 64) as usize] & (1 << (index % 64)) != 0
        }
        None => refuting_exits,
    };
    if may_resist { loss_floor(game, p) } else { 0 }
}

impl<W: Width> Resident<W> {
    pub(super) fn new(capacity: usize, slot_len: usize) -> Resident<W> {
        Resident {
            slots: Vec::new(),
            capacity: capacity.max(1),
            slot_len,
            recent: 0,
        }
    }

    /// The slot holding `slice`, if one does.
    pub(super) fn slot_of(&self, slice: usize) -> Option<usize> {
        self.slots.iter().position(|s| s.slice == Some(slice))
    }
}

/// How many slices of `slice_bytes` (and their refuter bits) stay in memory at once: what the budget holds after
/// the scatter's bucket buffers ([`bucket_buffer`] per slice) and a sixteenth of the budget for everything else; at
/// least one, at most all of them.
pub(super) fn resident_slots(budget: u64, shift: u32, slice_bytes: u64, slices: usize) -> usize {
    let slot = slice_bytes + (1u64 << shift) / 8;
    let buffers = bucket_buffer(budget, slices) as u64 * slices as u64;
    let room = budget.saturating_sub(buffers + budget / 16);
    ((room / slot.max(1)) as usize).clamp(1, slices.max(1))
}

/// The bytes of a bucket's write buffer during a scatter: a sixteenth of the budget shared by the slices, between
/// 4 KiB and 256 KiB (writes of 256 KiB are as fast as larger ones; the budget is better spent on resident slices).
pub(super) fn bucket_buffer(budget: u64, slices: usize) -> usize {
    (budget / 16 / slices.max(1) as u64).clamp(1 << 12, 1 << 18) as usize
}

impl<G: Game> Sliced<'_, G> {
    /// Brings `slice` into a slot and returns the slot: the one holding it already, a new one while there is room,
    /// or else the slot used last, written back first if it changed.
    pub(super) fn load<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        slice: usize,
    ) -> Result<usize, EngineError> {
        if let Some(slot) = resident.slot_of(slice) {
            resident.recent = slot;
            return Ok(slot);
        }
        let slot = if resident.slots.len() < resident.capacity {
            resident.slots.push(Slot {
                cells: Cells::<W>::new(resident.slot_len, &Backing::Memory)?,
                refuters: None,
                slice: None,
                dirty: false,
            });
            resident.slots.len() - 1
        } else {
            let slot = resident.recent;
            self.flush_slot(state, &mut resident.slots[slot])?;
            slot
        };
        let (base, len) = state.slice_range(slice);
        let refuters = self.refuters_of(state, base, len)?;
        let target = &mut resident.slots[slot];
        target.slice = None;
        target.refuters = refuters;
        self.read_cells(state, slice, target.cells.bytes_mut(len))?;
        target.slice = Some(slice);
        resident.recent = slot;
        Ok(slot)
    }

    /// Writes a slot's slice to a new file if it changed since it was read.
    pub(super) fn flush_slot<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        slot: &mut Slot<W>,
    ) -> io::Result<()> {
        if let (Some(slice), true) = (slot.slice, slot.dirty) {
            let tag = state.new_tag();
            let (_, len) = state.slice_range(slice);
            self.write_cells(state, slice, tag, slot.cells.bytes(len))?;
            slot.dirty = false;
        }
        Ok(())
    }

    /// Writes every resident slice that changed since it was read.
    pub(super) fn flush<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
    ) -> io::Result<()> {
        for slot in &mut resident.slots {
            self.flush_slot(state, slot)?;
        }
        Ok(())
    }
}
