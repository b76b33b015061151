//! Loop devices through the kernel interface (/dev/loop-control and the loop ioctls).
//!
//! Why ioctls rather than `losetup`: we get the exact device bound, and we bind with
//! LO_FLAGS_AUTOCLEAR while holding the device open, so if fsbattery dies before anything is
//! mounted the kernel detaches the device on its own when our descriptor closes. Ownership is
//! always checked through LOOP_GET_STATUS64: a device is ours only while its backing file has
//! our image's (st_dev, st_ino).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const LOOP_SET_FD: libc::c_ulong = 0x4C00;
const LOOP_CLR_FD: libc::c_ulong = 0x4C01;
const LOOP_SET_STATUS64: libc::c_ulong = 0x4C04;
const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;
const LOOP_CONFIGURE: libc::c_ulong = 0x4C0A;
const LOOP_CTL_GET_FREE: libc::c_ulong = 0x4C82;
const LO_FLAGS_AUTOCLEAR: u32 = 4;
const LO_FLAGS_DIRECT_IO: u32 = 16;
const LO_NAME_SIZE: usize = 64;

/// `struct loop_info64` from <linux/loop.h>.
#[repr(C)]
#[derive(Clone, Copy)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; LO_NAME_SIZE],
    lo_crypt_name: [u8; LO_NAME_SIZE],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

/// `struct loop_config` from <linux/loop.h> (LOOP_CONFIGURE, Linux 5.8+).
#[repr(C)]
struct LoopConfig {
    fd: u32,
    block_size: u32,
    info: LoopInfo64,
    reserved: [u64; 8],
}

fn zeroed_info() -> LoopInfo64 {
    // SAFETY: LoopInfo64 is plain old data; all-zero is its documented "unset" value.
    unsafe { std::mem::zeroed() }
}

/// A loop device bound by us; dropping `fd` lets autoclear detach it once unused.
#[derive(Debug)]
pub struct Bound {
    /// /dev/loopN.
    pub device: PathBuf,
    /// Our open descriptor on the device.
    pub fd: File,
}

fn open_rw(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
}

/// Bind `image` to a free loop device with autoclear (and direct I/O when asked).
pub fn attach(image: &Path, direct_io: bool) -> std::io::Result<Bound> {
    let ctl = open_rw(Path::new("/dev/loop-control"))?;
    let backing = open_rw(image)?;
    let mut last = std::io::Error::other("no free loop device");
    // Another process may take the free device between GET_FREE and CONFIGURE: retry.
    for _ in 0..32 {
        // SAFETY: LOOP_CTL_GET_FREE takes no argument and returns a device number.
        let n = unsafe { libc::ioctl(ctl.as_raw_fd(), LOOP_CTL_GET_FREE) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let device = PathBuf::from(format!("/dev/loop{n}"));
        let fd = open_node(&device)?;
        match configure(&fd, &backing, image, direct_io) {
            Ok(()) => return Ok(Bound { device, fd }),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Open a freshly allocated loop node; devtmpfs creates it, but give it a moment.
fn open_node(device: &Path) -> std::io::Result<File> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match open_rw(device) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => return other,
        }
    }
}

fn configure(fd: &File, backing: &File, image: &Path, direct_io: bool) -> std::io::Result<()> {
    let mut info = zeroed_info();
    info.lo_flags = LO_FLAGS_AUTOCLEAR | if direct_io { LO_FLAGS_DIRECT_IO } else { 0 };
    let name = image.as_os_str().as_encoded_bytes();
    let n = name.len().min(LO_NAME_SIZE - 1);
    info.lo_file_name[..n].copy_from_slice(&name[..n]);
    let cfg = LoopConfig {
        fd: backing.as_raw_fd() as u32,
        block_size: 0,
        info,
        reserved: [0; 8],
    };
    // SAFETY: cfg is a valid loop_config that outlives the call.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), LOOP_CONFIGURE, &cfg as *const LoopConfig) };
    if r == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if !matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOTTY)) {
        return Err(err);
    }
    // Kernels before 5.8: bind, then set the flags.
    // SAFETY: LOOP_SET_FD takes the backing descriptor by value.
    if unsafe { libc::ioctl(fd.as_raw_fd(), LOOP_SET_FD, backing.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: info is a valid loop_info64 that outlives the call.
    if unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            LOOP_SET_STATUS64,
            &info as *const LoopInfo64,
        )
    } != 0
    {
        let err = std::io::Error::last_os_error();
        // SAFETY: LOOP_CLR_FD takes no argument; undo the half-done bind.
        unsafe { libc::ioctl(fd.as_raw_fd(), LOOP_CLR_FD) };
        return Err(err);
    }
    Ok(())
}

/// (st_dev, st_ino) of the file bound to the device open as `fd`; `None` when unbound.
pub fn backing_id(fd: &File) -> Option<(u64, u64)> {
    let mut info = zeroed_info();
    // SAFETY: info is a writable loop_info64 that outlives the call.
    let r = unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            LOOP_GET_STATUS64,
            &mut info as *mut LoopInfo64,
        )
    };
    (r == 0).then_some((info.lo_device, info.lo_inode))
}

/// Detach the device open as `fd` after checking it is still bound to `image_id`.
///
/// Returns Ok(false) when it was no longer bound to our image (nothing done). With our
/// descriptor still open the kernel defers the detach to the last close, so the descriptor is
/// closed here and the detach is awaited.
pub fn detach(fd: File, device: &Path, image_id: (u64, u64)) -> Result<bool, String> {
    if backing_id(&fd) != Some(image_id) {
        return Ok(false);
    }
    // SAFETY: LOOP_CLR_FD takes no argument.
    if unsafe { libc::ioctl(fd.as_raw_fd(), LOOP_CLR_FD) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("detach {}: {e}", device.display()));
    }
    drop(fd);
    let deadline = Instant::now() + Duration::from_secs(5);
    while bound_to(device) == Some(image_id) {
        if Instant::now() > deadline {
            return Err(format!(
                "{} is still bound after LOOP_CLR_FD (something holds it open); \
                 autoclear will detach it once it is released",
                device.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(true)
}

/// The (st_dev, st_ino) bound to `device` right now, without claiming it.
pub fn bound_to(device: &Path) -> Option<(u64, u64)> {
    let fd = std::fs::File::open(device).ok()?;
    backing_id(&fd)
}

/// Whether sysfs names `image` as the backing file of `device` (/dev/loopN); the kernel
/// appends " (deleted)" once the file is unlinked.
pub fn backed_by(device: &Path, image: &Path) -> bool {
    let Some(name) = device.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let path = format!("/sys/block/{name}/loop/backing_file");
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let text = text.trim_end_matches('\n');
    let image = image.to_string_lossy();
    text == image || text.strip_suffix(" (deleted)") == Some(&*image)
}

/// Every loop device whose backing file is `image_id` (for a crash before the device was
/// recorded).
pub fn devices_bound_to(image_id: (u64, u64)) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            // Only bound devices have a loop/backing_file; skip the rest without opening.
            (name.starts_with("loop") && e.path().join("loop/backing_file").exists())
                .then(|| PathBuf::from("/dev").join(name))
        })
        .filter(|d| bound_to(d) == Some(image_id))
        .collect();
    out.sort();
    out
}

/// Open `device` for a checked detach (cleanup of a device we no longer hold).
pub fn open(device: &Path) -> std::io::Result<File> {
    open_rw(device)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_match_the_kernel_abi() {
        assert_eq!(std::mem::size_of::<LoopInfo64>(), 232);
        assert_eq!(std::mem::size_of::<LoopConfig>(), 304);
    }
}
