//! The files of an out-of-core build: cells written and read slice by slice, bucket and frontier writers, a writer
//! that fails like a full disk for the tests, and what the file system is asked (free space, sync, page cache).

use super::*;

/// Bytes free for an unprivileged user on the file system of `dir`.
pub(super) fn free_space(dir: &Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: statvfs only writes into the zeroed struct we pass, and `path` is a valid NUL-terminated string that
    // outlives the call.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

/// Writes every dirty page of the file system that holds `file` to the disk.
pub(super) fn sync_file_system(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: syncfs only reads the descriptor, which `file` keeps open for the duration of the call.
    if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The bucket files of one round of a scatter, each created when its first entry comes (a thin generation touches
/// few slices).
pub(super) struct BucketWriters {
    pub(super) dir: PathBuf,
    pub(super) writers: Vec<Option<BufWriter<File>>>,
    /// Entries per bucket.
    pub(super) counts: Vec<u64>,
    pub(super) buffer_bytes: usize,
}

impl BucketWriters {
    pub(super) fn new(dir: &Path, slices: usize, buffer_bytes: usize) -> BucketWriters {
        BucketWriters {
            dir: dir.to_owned(),
            writers: (0..slices).map(|_| None).collect(),
            counts: vec![0; slices],
            buffer_bytes,
        }
    }

    /// Entries written so far, all buckets together.
    pub(super) fn entries(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Appends the entries of each slice (as bytes); returns the bytes written.
    pub(super) fn append(&mut self, buckets: &[Vec<u8>]) -> io::Result<u64> {
        let mut written = 0;
        for (slice, entries) in buckets.iter().enumerate() {
            if entries.is_empty() {
                continue;
            }
            let writer = match &mut self.writers[slice] {
                Some(writer) => writer,
                empty => empty.insert(BufWriter::with_capacity(
                    self.buffer_bytes,
                    File::create(self.dir.join(bucket_name(slice)))?,
                )),
            };
            writer.write_all(entries)?;
            self.counts[slice] += entries.len() as u64 / 4;
            written += entries.len() as u64;
        }
        Ok(written)
    }

    /// Flushes the buckets; returns their entry counts.
    pub(super) fn finish(self) -> io::Result<Vec<u64>> {
        for (writer, &entries) in self.writers.into_iter().zip(&self.counts) {
            if let Some(writer) = writer {
                release_cache(
                    &writer.into_inner().map_err(|e| e.into_error())?,
                    entries * 4,
                );
            }
        }
        Ok(self.counts)
    }
}

/// Asks the kernel to write a file's pages out now and to drop them from the page cache: the cache of written files
/// counts against a memory cgroup's limit, and none of them is read again soon.
pub(super) fn release_cache(file: &File, bytes: u64) {
    use std::os::fd::AsRawFd;
    // Small files are not worth a system call (nor the early writeback it starts).
    if bytes < 1 << 20 {
        return;
    }
    // SAFETY: posix_fadvise only reads the descriptor, which `file` keeps open for the duration of the call; it is
    // advice, and its failure changes nothing but speed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

/// A new file of the work directory, which fails as a full disk would once `room` bytes are written (the tests'
/// simulated disk size; `None` outside tests).
pub(super) struct Limited {
    pub(super) file: File,
    pub(super) room: Option<u64>,
}

impl Write for Limited {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.room.is_some_and(|room| bytes.len() as u64 > room) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let written = self.file.write(bytes)?;
        if let Some(room) = &mut self.room {
            *room -= written as u64;
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Appends frontier entries to a new frontier file.
pub(super) struct FrontierWriter {
    pub(super) out: BufWriter<File>,
    pub(super) len: u64,
}

impl FrontierWriter {
    pub(super) fn create(path: &Path) -> io::Result<FrontierWriter> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(FrontierWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            len: 0,
        })
    }

    pub(super) fn extend(&mut self, entries: &[u64]) -> io::Result<()> {
        for e in entries {
            self.out.write_all(&e.to_ne_bytes())?;
        }
        self.len += entries.len() as u64;
        Ok(())
    }

    /// Flushes the file (the checkpoint that names it syncs it); returns its number of entries.
    pub(super) fn finish(self, report: &mut Report) -> io::Result<u64> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        release_cache(&file, self.len * 8);
        report.bytes_written += self.len * 8;
        Ok(self.len)
    }
}

impl<G: Game> Sliced<'_, G> {
    /// Creates a new file, which fails as a full disk would beyond the simulated disk size of the tests.
    pub(super) fn create(&self, name: &str) -> io::Result<Limited> {
        Ok(Limited {
            file: File::create(self.path(name))?,
            room: self
                .disk_full_after
                .map(|limit| limit.saturating_sub(self.report.bytes_written)),
        })
    }

    /// Writes `bytes` as a new file (a checkpoint syncs it before naming it).
    pub(super) fn write_file(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let mut out = self.create(name)?;
        out.write_all(bytes)?;
        release_cache(&out.file, bytes.len() as u64);
        self.report.bytes_written += bytes.len() as u64;
        Ok(())
    }

    /// Writes the cells of `slice` packed to a new file with a new tag, and names it in `state`.
    pub(super) fn write_cells(
        &mut self,
        state: &mut Checkpoint,
        slice: usize,
        tag: u64,
        bytes: &[u8],
    ) -> io::Result<()> {
        let mut out = self.create(&cells_name(slice, tag))?;
        let length = packed::write(&mut out, bytes, state.width.bits() as usize / 8)?;
        release_cache(&out.file, length);
        self.report.bytes_written += length;
        state.cell_tags[slice] = tag;
        state.cell_lengths[slice] = length;
        Ok(())
    }

    /// Reads the cells of `slice` into `bytes` (as many as the slice holds).
    pub(super) fn read_cells(
        &mut self,
        state: &Checkpoint,
        slice: usize,
        bytes: &mut [u8],
    ) -> io::Result<()> {
        let name = cells_name(slice, state.cell_tags[slice]);
        let mut file = File::open(self.path(&name))?;
        let read = packed::read(&mut file, bytes, state.width.bits() as usize / 8)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        self.report.bytes_read += read;
        Ok(())
    }
}
