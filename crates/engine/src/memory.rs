//! How much memory a build may use when not told: half of what this process can have — the machine's RAM, or the
//! limit of its memory cgroup when that is lower (a container, a batch job, `systemd-run -p MemoryMax=`).
//!
//! The cgroup's limit counts the page cache of the files the build writes as well as its own memory, so taking all
//! of it would leave the kernel no room but to throttle the writes; half leaves room for the cache, for the mapped
//! sub-tables and for what the engine does not count.

use std::fs;
use std::path::Path;

/// The memory a build may use when not told: half of the machine's RAM (from /proc/meminfo, 1 GiB where that cannot
/// be read) or half of the process's memory cgroup limit, whichever is lower.
pub fn default_budget() -> u64 {
    let ram = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total(&text))
        .unwrap_or(2 << 30);
    let cgroup = fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_limit(Path::new("/sys/fs/cgroup"), &text));
    cgroup.map_or(ram, |limit| limit.min(ram)) / 2
}

/// The machine's RAM in bytes, from the text of /proc/meminfo.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The lowest memory limit on the process's cgroup and its ancestors, given the text of /proc/self/cgroup and where
/// the cgroup file systems are mounted: cgroup v2 (`0::/path`, limits in `memory.max`) or v1 (`N:memory:/path`,
/// or a line naming memory among other controllers, limits in `memory/…/memory.limit_in_bytes`). `None` when no
/// limit is set (v2's `max`, v1's huge number) or none can be read.
fn cgroup_limit(root: &Path, proc_cgroup: &str) -> Option<u64> {
    let mut lowest: Option<u64> = None;
    for line in proc_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (base, file) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        // The cgroup itself and every ancestor up to the root: a limit anywhere above holds too.
        let mut dir = Some(Path::new(path.trim_start_matches('/')));
        while let Some(relative) = dir {
            let limit = fs::read_to_string(base.join(relative).join(file))
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                // v1 writes "no limit" as a page-rounded i64::MAX.
                .filter(|&bytes| bytes < 1 << 60);
            if let Some(limit) = limit {
                lowest = Some(lowest.map_or(limit, |l| l.min(limit)));
            }
            dir = relative.parent();
        }
    }
    lowest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_the_ram() {
        let meminfo = "MemTotal:       24608712 kB\nMemFree:        22000000 kB\n";
        assert_eq!(mem_total(meminfo), Some(24_608_712 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(mem_total("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn finds_the_lowest_cgroup_v2_limit_up_the_tree() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "memory.max", "max\n");
        write(root.path(), "jobs/memory.max", "1073741824\n");
        write(root.path(), "jobs/build/memory.max", "max\n");
        assert_eq!(cgroup_limit(root.path(), "0::/jobs/build\n"), Some(1 << 30));
        write(root.path(), "jobs/build/memory.max", "197132288\n");
        assert_eq!(
            cgroup_limit(root.path(), "0::/jobs/build\n"),
            Some(197_132_288)
        );
        // No limit anywhere, or nothing to read.
        assert_eq!(cgroup_limit(root.path(), "0::/\n"), None);
        assert_eq!(cgroup_limit(root.path(), "0::/elsewhere\n"), None);
        assert_eq!(cgroup_limit(root.path(), ""), None);
    }

    #[test]
    fn finds_the_cgroup_v1_memory_limit() {
        let root = tempfile::tempdir().unwrap();
        write(
            root.path(),
            "memory/memory.limit_in_bytes",
            "9223372036854771712\n",
        );
        write(
            root.path(),
            "memory/retro-7/memory.limit_in_bytes",
            "157286400\n",
        );
        // Another controller's line names another path; only the memory controller's counts.
        let text = "12:pids:/other\n4:cpu,cpuacct:/\n9:memory:/retro-7\n";
        assert_eq!(cgroup_limit(root.path(), text), Some(157_286_400));
        assert_eq!(cgroup_limit(root.path(), "9:memory:/\n"), None);
        assert_eq!(cgroup_limit(root.path(), "garbage\n"), None);
    }
}
