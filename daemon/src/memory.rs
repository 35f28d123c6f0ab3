//! Memory goes back to the system after a burst, under glibc's malloc.
//!
//! The `radar` binary allocates with mimalloc (`cli/src/main.rs`), which kept a burst's
//! freed blocks until asked: it registers `mi_collect` with [`set_release`], and the
//! glibc tunables below only matter where the daemon runs on glibc's allocator (its own
//! tests, or another binary built over this crate).
//!
//! glibc's malloc raises its mmap threshold to the size of the largest block freed (up
//! to 32 MiB), so after the first 19 MiB argon2 buffer is freed, later ones come from the
//! heap and stay in the process when freed: the daemon kept 1.5 GB after a burst of
//! sign-ins. Fixing the threshold keeps every large block an `mmap` of its own, unmapped
//! on `free`; capping the arenas bounds how many heaps fragment; and a trim when the
//! hashing pool goes idle returns what small allocations left behind.

/// Blocks at least this large are mapped on their own and returned when freed.
const MMAP_THRESHOLD: i32 = 256 * 1024;

/// Sets the allocator up for a long-running daemon. Call before threads start.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tunables; both values are in range.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        libc::mallopt(
            libc::M_ARENA_MAX,
            i32::try_from(2 * cores).unwrap_or(i32::MAX),
        );
    }
}

/// How the binary's own allocator hands free memory back, when it has one (see
/// [`set_release`]).
static RELEASE: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Registers how the binary's global allocator returns free memory to the system, for
/// [`release_free_memory`] to call after glibc's trim. The first call wins.
pub fn set_release(release: fn()) {
    let _ = RELEASE.set(release);
}

/// Returns free heap memory to the system (after a burst of work, or the start's).
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim walks the allocator's own free lists; no pointer is involved.
    unsafe {
        libc::malloc_trim(0);
    }
    if let Some(release) = RELEASE.get() {
        release();
    }
}
