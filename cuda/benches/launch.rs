//! Launch cost through libcuda's C ABI against the Rust API, in the same run: an empty kernel
//! launched many times on a stream (batched, one wait at the end) and one launch plus a wait
//! at a time (unbatched). The C side loads the libcuda.so cargo built next to this benchmark,
//! as a C program would. `cargo bench -p ptxvk-cuda` for full sizes; `cargo test
//! --all-targets` runs it small, as a check that both paths work.

use std::ffi::{c_int, c_uint, c_void};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ptxvk_runtime::{Context, ContextOptions, LaunchConfig};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const EMPTY: &str = include_str!("../../shaders/empty.ptx");

fn full() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// A way to launch the empty kernel and to wait for the stream.
struct Side {
    launch: Box<dyn FnMut() -> Res<()>>,
    wait: Box<dyn FnMut() -> Res<()>>,
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): what a launch costs its
/// caller, which the machine's other load does not inflate.
fn thread_cpu() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

impl Side {
    /// `n` launches then one wait (batched), or `n` times a launch and a wait (unbatched):
    /// (wall-clock time, the calling thread's CPU time for the launches alone when batched).
    fn time(&mut self, n: usize, each: bool) -> Res<(Duration, Duration)> {
        let t = Instant::now();
        let cpu = thread_cpu();
        for _ in 0..n {
            (self.launch)()?;
            if each {
                (self.wait)()?;
            }
        }
        let cpu = cpu.zip(thread_cpu()).map_or(Duration::ZERO, |(a, b)| b - a);
        (self.wait)()?;
        Ok((t.elapsed(), cpu))
    }
}

fn us(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

/// The Rust API: `Stream::launch` and `Stream::synchronize`.
fn rust_api() -> Res<Side> {
    let ctx = Context::new(&ContextOptions::from_env())?;
    let m = ctx.load_ptx("empty.ptx", EMPTY)?;
    let k = m.kernel("empty")?;
    let cfg = LaunchConfig::new([1, 1, 1], [1, 1, 1]);
    let args = [0u64.into()];
    k.launch(&cfg, &args)?;
    let s = ctx.new_stream()?;
    let s2 = s.clone();
    Ok(Side {
        launch: Box::new(move || Ok(s.launch(&k, &cfg, &args)?)),
        wait: Box::new(move || Ok(s2.synchronize()?)),
    })
}

type Handle = *mut c_void;

/// The built library: next to this executable (deps/) or one level up.
fn libcuda() -> Res<PathBuf> {
    let exe = std::env::current_exe()?;
    let deps = exe.parent().ok_or("no directory")?;
    [deps.join("libcuda.so"), deps.join("../libcuda.so")]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .ok_or_else(|| format!("libcuda.so is not built next to {}", deps.display()).into())
}

fn check(what: &str, r: u32) -> Res<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned {r}").into())
    }
}

/// The C ABI: `cuLaunchKernel` and `cuStreamSynchronize` from the loaded library.
fn c_abi() -> Res<Side> {
    // SAFETY: loading our own library, whose initialisers only set up Rust statics.
    let lib = unsafe { libloading::Library::new(libcuda()?)? };
    type Launch = unsafe extern "C" fn(
        Handle,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        Handle,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> u32;
    // SAFETY: each symbol is looked up with the signature cuda.h declares for it.
    let (init, ctx_create, load, get_fn, stream_create, launch, sync) = unsafe {
        (
            *lib.get::<unsafe extern "C" fn(c_uint) -> u32>(b"cuInit")?,
            *lib.get::<unsafe extern "C" fn(*mut Handle, c_uint, c_int) -> u32>(b"cuCtxCreate_v2")?,
            *lib.get::<unsafe extern "C" fn(*mut Handle, *const c_void) -> u32>(
                b"cuModuleLoadData",
            )?,
            *lib.get::<unsafe extern "C" fn(*mut Handle, Handle, *const i8) -> u32>(
                b"cuModuleGetFunction",
            )?,
            *lib.get::<unsafe extern "C" fn(*mut Handle, c_uint) -> u32>(b"cuStreamCreate")?,
            *lib.get::<Launch>(b"cuLaunchKernel")?,
            *lib.get::<unsafe extern "C" fn(Handle) -> u32>(b"cuStreamSynchronize")?,
        )
    };
    let text = std::ffi::CString::new(EMPTY)?;
    let (mut ctx, mut module, mut f, mut s) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    // The argument and the parameter array are read at each launch, after this function
    // returns: they live for the process.
    let arg: &'static mut u64 = Box::leak(Box::new(0));
    let params: &'static mut [*mut c_void; 1] = Box::leak(Box::new([(arg as *mut u64).cast()]));
    // SAFETY: the calls as cuda.h documents them, with valid out-pointers and NUL-terminated
    // strings; `params` holds one pointer per kernel parameter.
    unsafe {
        check("cuInit", init(0))?;
        check("cuCtxCreate", ctx_create(&mut ctx, 0, 0))?;
        check("cuModuleLoadData", load(&mut module, text.as_ptr().cast()))?;
        check(
            "cuModuleGetFunction",
            get_fn(&mut f, module, c"empty".as_ptr()),
        )?;
        check("cuStreamCreate", stream_create(&mut s, 0))?;
    }
    let p = params.as_mut_ptr();
    let null = std::ptr::null_mut();
    // The library stays loaded: its contexts and threads outlive this function.
    std::mem::forget(lib);
    // SAFETY: the calls as cuda.h documents them, with the handles made above.
    let go = move || unsafe { check("cuLaunchKernel", launch(f, 1, 1, 1, 1, 1, 1, 0, s, p, null)) };
    // SAFETY: as above.
    let wait = move || unsafe { check("cuStreamSynchronize", sync(s)) };
    go()?;
    wait()?;
    Ok(Side {
        launch: Box::new(go),
        wait: Box::new(wait),
    })
}

/// Each measurement alternates between the two sides, five rounds, best of each: the machine's
/// other load then weighs on both alike.
fn main() -> Res<()> {
    let n = if full() { 2000 } else { 20 };
    let mut rust = rust_api()?;
    let mut c = c_abi()?;
    // Wall-clock batched and unbatched, then the caller's CPU time batched; Rust, C each.
    let mut best = [[Duration::MAX; 2]; 3];
    for _ in 0..5 {
        for each in [false, true] {
            for (side, s) in [&mut rust, &mut c].into_iter().enumerate() {
                let (wall, cpu) = s.time(n, each)?;
                let row = usize::from(each);
                best[row][side] = best[row][side].min(wall);
                if !each {
                    best[2][side] = best[2][side].min(cpu);
                }
            }
        }
    }
    println!("launch: empty kernel, {n} launches on a stream, best of 5 alternating rounds");
    let rows = ["batched, wall", "unbatched, wall", "batched, caller CPU"];
    for (what, [r, c]) in rows.into_iter().zip(best) {
        println!(
            "  {what:<20} Rust API {:8.2} us   C ABI {:8.2} us   C/Rust {:.2}",
            us(r, n),
            us(c, n),
            c.as_secs_f64() / r.as_secs_f64()
        );
    }
    Ok(())
}
