//! A bounded cache of decompressed blocks, shared by all the tables of a [`Tables`](crate::Tables) and by all the
//! threads that probe them.
//!
//! The cache is cut into shards, each a mutex around a small CLOCK cache (a ring of slots with a "recently used"
//! bit: the hand clears the bit of a used slot and evicts a slot whose bit is already clear, which approximates LRU
//! without moving anything on a hit). A probe locks one shard for the time of a hash lookup and of reading a few
//! bytes, so threads rarely wait for each other. A block is decompressed outside the lock; when two threads miss
//! the same block at once, both decompress it and the second keeps the first one's copy.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

/// Identifies a block: the file's number in the process (see `TableFile`) and the block's number in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BlockKey {
    pub file: u64,
    pub block: u64,
}

impl BlockKey {
    /// One well-mixed word for hashing and for choosing a shard.
    fn mix(self) -> u64 {
        let h = (self.file.rotate_left(40) ^ self.block).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 29)
    }
}

/// The cache's hash maps hash a key once with [`BlockKey::mix`]; SipHash would cost more than the rest of a probe.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only reached if a key type other than u64 is ever used; keeps the hasher correct all the same.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

struct Slot {
    key: u64,
    data: Box<[u8]>,
    referenced: bool,
}

#[derive(Default)]
struct Shard {
    /// Mixed key → position in `slots`.
    map: HashMap<u64, usize, BuildHasherDefault<KeyHasher>>,
    /// The ring; `None` marks a free slot.
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    hand: usize,
    bytes: usize,
}

impl Shard {
    fn get(&mut self, key: u64) -> Option<&[u8]> {
        let &at = self.map.get(&key)?;
        let slot = self.slots[at].as_mut().expect("mapped slots are full");
        slot.referenced = true;
        Some(&slot.data)
    }

    /// Inserts a block (the caller checked that it fits in `capacity` on its own) and returns its slot.
    fn insert(&mut self, key: u64, data: Box<[u8]>, capacity: usize) -> usize {
        while self.bytes + data.len() > capacity {
            self.evict_one();
        }
        self.bytes += data.len();
        let slot = Some(Slot {
            key,
            data,
            referenced: false,
        });
        let at = match self.free.pop() {
            Some(at) => {
                self.slots[at] = slot;
                at
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        self.map.insert(key, at);
        at
    }

    /// Advances the hand to the first slot not used since the last pass and frees it. Only called while the shard
    /// holds bytes, so some slot is full and the loop ends within two turns of the ring.
    fn evict_one(&mut self) {
        loop {
            let at = self.hand;
            self.hand = (self.hand + 1) % self.slots.len();
            if let Some(slot) = &mut self.slots[at] {
                if slot.referenced {
                    slot.referenced = false;
                } else {
                    let slot = self.slots[at].take().expect("checked full");
                    self.map.remove(&slot.key);
                    self.bytes -= slot.data.len();
                    self.free.push(at);
                    return;
                }
            }
        }
    }
}

/// The bounded, thread-safe cache of decompressed blocks.
pub(crate) struct BlockCache {
    shards: Box<[Mutex<Shard>]>,
    shard_capacity: usize,
}

impl BlockCache {
    /// A cache of at most about `bytes` bytes of decompressed blocks (0: no caching at all). Shards are at least
    /// 1 MiB each, so that they can hold whole blocks, and at most 64.
    pub fn new(bytes: usize) -> BlockCache {
        let shard_count = 1usize << (bytes >> 20).clamp(1, 64).ilog2();
        BlockCache {
            shards: (0..shard_count).map(|_| Mutex::default()).collect(),
            shard_capacity: bytes / shard_count,
        }
    }

    fn shard(&self, mixed: u64) -> MutexGuard<'_, Shard> {
        let shard = &self.shards[(mixed >> 58) as usize % self.shards.len()];
        // A panic while a shard was locked leaves it consistent (no method panics half-way through an update), so a
        // poisoned lock is used as it is.
        shard
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `read` on the decompressed block `key`, loading it with `load` if it is not cached.
    pub fn with_block<R, E>(
        &self,
        key: BlockKey,
        load: impl FnOnce() -> Result<Box<[u8]>, E>,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, E> {
        let mixed = key.mix();
        {
            let mut shard = self.shard(mixed);
            if let Some(data) = shard.get(mixed) {
                return Ok(read(data));
            }
        }
        let data = load()?;
        if data.len() > self.shard_capacity {
            return Ok(read(&data));
        }
        let mut shard = self.shard(mixed);
        if let Some(data) = shard.get(mixed) {
            return Ok(read(data));
        }
        let at = shard.insert(mixed, data, self.shard_capacity);
        Ok(read(&shard.slots[at].as_ref().expect("just inserted").data))
    }

    /// Bytes of blocks held now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.shards.iter().map(|s| s.lock().unwrap().bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn key(block: u64) -> BlockKey {
        BlockKey { file: 7, block }
    }

    #[test]
    fn a_cached_block_is_not_loaded_again() {
        let cache = BlockCache::new(1 << 20);
        let loads = Cell::new(0);
        for _ in 0..3 {
            let first = cache
                .with_block::<_, ()>(
                    key(1),
                    || {
                        loads.set(loads.get() + 1);
                        Ok(vec![5u8; 100].into_boxed_slice())
                    },
                    |d| d[0],
                )
                .unwrap();
            assert_eq!(first, 5);
        }
        assert_eq!(loads.get(), 1);
    }

    #[test]
    fn the_cache_stays_within_its_bound_and_keeps_used_blocks() {
        let cache = BlockCache::new(10_000);
        let load = |b: u64| move || Ok::<_, ()>(vec![b as u8; 1000].into_boxed_slice());
        for b in 0..100 {
            let v = cache.with_block(key(b), load(b), |d| d[999]).unwrap();
            assert_eq!(v, b as u8);
            // Block 0 is used all the time: CLOCK must keep it.
            cache.with_block(key(0), load(0), |d| d[0]).unwrap();
            assert!(cache.bytes() <= 10_000);
        }
        let reloaded = Cell::new(false);
        cache
            .with_block(
                key(0),
                || {
                    reloaded.set(true);
                    load(0)()
                },
                |_| (),
            )
            .unwrap();
        assert!(!reloaded.get(), "the hot block was evicted");
    }

    #[test]
    fn a_zero_cache_caches_nothing_and_a_load_error_comes_back() {
        let cache = BlockCache::new(0);
        let loads = Cell::new(0);
        for _ in 0..2 {
            cache
                .with_block::<_, ()>(
                    key(3),
                    || {
                        loads.set(loads.get() + 1);
                        Ok(vec![1u8; 10].into_boxed_slice())
                    },
                    |_| (),
                )
                .unwrap();
        }
        assert_eq!(loads.get(), 2);
        assert_eq!(cache.with_block(key(4), || Err("bad"), |_| ()), Err("bad"));
    }
}
