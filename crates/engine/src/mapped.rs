//! Memory-mapped arrays of atomic integers: the storage of every per-position array of the engine.
//!
//! An array lives either in anonymous memory or in a file of a work directory. A file-backed array lets the kernel
//! page it out, so the engine's arrays may be larger than RAM; the out-of-core scheduling that keeps such a build at
//! disk speed sits on top of this.

use std::fs::{File, OpenOptions};
use std::io;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64};

use memmap2::MmapMut;

/// An atomic integer type that may be laid over mapped memory.
///
/// # Safety
/// Implementors must have the size and alignment of their integer and be valid for every bit pattern, including all
/// zeroes (a fresh mapping is zero-filled).
pub unsafe trait Atomic: Sync + Send + 'static {}

// SAFETY: the standard atomics have the size and alignment of their integers and every bit pattern is a valid value.
unsafe impl Atomic for AtomicU8 {}
// SAFETY: as above.
unsafe impl Atomic for AtomicU16 {}
// SAFETY: as above.
unsafe impl Atomic for AtomicU32 {}
// SAFETY: as above.
unsafe impl Atomic for AtomicU64 {}

/// Where arrays are stored.
#[derive(Clone, Debug, Default)]
pub enum Backing {
    /// Anonymous memory.
    #[default]
    Memory,
    /// Files in this directory, unlinked as soon as they are mapped (their space is freed with the mapping).
    Directory(PathBuf),
}

/// A zero-initialised array of `len` atomics in mapped memory.
pub struct MappedArray<A: Atomic> {
    map: MmapMut,
    len: usize,
    /// The file of a file-backed array, kept open while it is mapped (its name is already gone).
    _file: Option<File>,
    _atomic: PhantomData<A>,
}

impl<A: Atomic> MappedArray<A> {
    /// Maps a new array of `len` zeroes. `name` names its file when the backing is a directory.
    pub fn new(len: usize, backing: &Backing, name: &str) -> io::Result<Self> {
        let bytes = len
            .checked_mul(size_of::<A>())
            .ok_or_else(|| io::Error::other("array size overflows the address space"))?;
        // A mapping of zero bytes is an error on Linux; one page costs nothing.
        let mapped_bytes = bytes.max(1);
        let (map, file) = match backing {
            Backing::Memory => (MmapMut::map_anon(mapped_bytes)?, None),
            Backing::Directory(dir) => {
                let path = unique_path(dir, name);
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .open(&path)?;
                file.set_len(mapped_bytes as u64)?;
                // SAFETY: the file was just created by us under a fresh name and nobody else maps or truncates it
                // while the mapping lives (it is unlinked at once, below).
                let map = unsafe { MmapMut::map_mut(&file)? };
                // The mapping keeps the data; unlinking the name now means that no file is left behind, even by a
                // process that is killed.
                std::fs::remove_file(&path)?;
                (map, Some(file))
            }
        };
        Ok(MappedArray {
            map,
            len,
            _file: file,
            _atomic: PhantomData,
        })
    }

    /// Maps the first `len` elements' worth of an open file whose name is already gone, such as an array written
    /// out with ordinary writes: its pages start clean, so under memory pressure the kernel drops them instead of
    /// writing them back first.
    pub fn from_unlinked_file(file: File, len: usize) -> io::Result<Self> {
        let bytes = len
            .checked_mul(size_of::<A>())
            .ok_or_else(|| io::Error::other("array size overflows the address space"))?;
        if file.metadata()?.len() < bytes as u64 {
            return Err(io::Error::other("the file is shorter than the array"));
        }
        if bytes == 0 {
            return MappedArray::new(0, &Backing::Memory, "empty");
        }
        // SAFETY: the caller hands over the only handle to a file that no longer has a name, so no other process or
        // handle can map, write or truncate it while the mapping lives; it is at least `bytes` long (checked above).
        let map = unsafe { memmap2::MmapOptions::new().len(bytes).map_mut(&file)? };
        Ok(MappedArray {
            map,
            len,
            _file: Some(file),
            _atomic: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Gives the memory of elements `start..end` back to the kernel: they read as zero afterwards (anonymous
    /// memory) or as the file's contents. For arrays whose elements in that range are never needed again, such as
    /// narrow cells already copied into wider ones. The range is rounded inwards to whole pages.
    pub fn release(&mut self, start: usize, end: usize) {
        const PAGE: usize = 4096;
        let first = (start * size_of::<A>()).next_multiple_of(PAGE);
        let last = (end.min(self.len) * size_of::<A>()) / PAGE * PAGE;
        if last > first {
            // SAFETY: `&mut self` guarantees no reference into the mapping is alive while the pages are dropped; the
            // caller asserts it will not need the old contents of these elements (they read back as zeroes or as the
            // file's bytes, both valid values of an atomic integer). Failure only means the memory stays resident.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    first,
                    last - first,
                )
            };
        }
    }

    /// The bytes of the first `len` elements, for reading them from a file. Taking `&mut self` guarantees that no
    /// shared reference (hence no atomic access from another thread) exists meanwhile.
    pub fn bytes_mut(&mut self, len: usize) -> &mut [u8] {
        &mut self.map[..len * size_of::<A>()]
    }

    /// The bytes of the first `len` elements, for writing them to a file (exclusive for the same reason).
    pub fn bytes(&mut self, len: usize) -> &[u8] {
        &self.map[..len * size_of::<A>()]
    }

    /// The array as shared atomics: every access goes through atomic operations, so many threads may use it at once.
    pub fn as_slice(&self) -> &[A] {
        // SAFETY: the mapping is page-aligned (so aligned for any atomic), at least `len * size_of::<A>()` bytes long,
        // zero-initialised, and lives as long as `self`. `A` is valid for every bit pattern (trait `Atomic`). We only
        // ever hand out shared references, and all mutation goes through the atomics' interior mutability.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<A>(), self.len) }
    }
}

fn unique_path(dir: &Path, name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SERIAL: AtomicUsize = AtomicUsize::new(0);
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(
        "retro-{}-{serial}-{name}.array",
        std::process::id()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn anonymous_arrays_start_at_zero_and_hold_values() {
        let a = MappedArray::<AtomicU16>::new(1000, &Backing::Memory, "t").unwrap();
        assert!(a.as_slice().iter().all(|x| x.load(Ordering::Relaxed) == 0));
        a.as_slice()[999].store(7, Ordering::Relaxed);
        assert_eq!(a.as_slice()[999].load(Ordering::Relaxed), 7);
    }

    #[test]
    fn file_backed_arrays_remove_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let backing = Backing::Directory(dir.path().to_owned());
        {
            let a = MappedArray::<AtomicU32>::new(4096, &backing, "cells").unwrap();
            a.as_slice()[4095].store(u32::MAX, Ordering::Relaxed);
            assert_eq!(a.as_slice()[4095].load(Ordering::Relaxed), u32::MAX);
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn arrays_map_files_written_beforehand() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("written");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        file.write_all(&[1, 0, 2, 0, 3, 0]).unwrap();
        let a = MappedArray::<AtomicU16>::from_unlinked_file(file.try_clone().unwrap(), 3).unwrap();
        let values: Vec<u16> = a
            .as_slice()
            .iter()
            .map(|x| x.load(Ordering::Relaxed))
            .collect();
        assert_eq!(values, [1, 2, 3]);
        assert!(MappedArray::<AtomicU16>::from_unlinked_file(file, 4).is_err());
    }

    #[test]
    fn empty_arrays_are_fine() {
        let a = MappedArray::<AtomicU8>::new(0, &Backing::Memory, "t").unwrap();
        assert!(a.as_slice().is_empty());
    }
}
