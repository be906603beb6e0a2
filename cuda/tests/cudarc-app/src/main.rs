//! A program written against cudarc the way its users write one: cudarc loads libcuda and
//! libnvrtc itself, NVRTC compiles CUDA C to PTX, and the driver allocates, copies, launches
//! on two streams ordered by events, and reads a module global back. Every result is checked
//! against the same computation on the host; any difference exits non-zero.

use std::process::ExitCode;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};

const SRC: &str = r#"
__device__ unsigned int launches;

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
    if (i == 0) atomicAdd(&launches, 1u);
}

// Sums each block's slice in shared memory, then adds the block's sum into *total.
extern "C" __global__ void block_sum(const int *in, unsigned long long *total, int n) {
    extern __shared__ int part[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)part[0]);
    if (i == 0) atomicAdd(&launches, 1u);
}

extern "C" __global__ void square(double *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = fma(v[i], v[i], 0.5);
}
"#;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("cudarc: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cudarc: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<()> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        return Err(format!("{what}[{i}] = {:?}, expected {:?}", got[i], want[i]).into());
    }
    Ok(())
}

fn run() -> Result<()> {
    let devices = CudaContext::device_count()?;
    if devices < 1 {
        return Err("no CUDA device".into());
    }
    let ctx = CudaContext::new(0)?;
    let (major, minor) = ctx.compute_capability()?;
    println!(
        "device 0: {} (compute {major}.{minor}, {} MiB)",
        ctx.name()?,
        ctx.total_mem()? >> 20
    );

    // PTX for a virtual architecture, so that the driver compiles it for the device it has.
    let ptx = compile_ptx_with_opts(
        SRC,
        CompileOptions {
            arch: Some("compute_70"),
            ..Default::default()
        },
    )
    .map_err(|e| format!("nvrtc: {e:?}"))?;
    let module = ctx.load_module(ptx)?;
    let saxpy = module.load_function("saxpy")?;
    let block_sum = module.load_function("block_sum")?;
    let square = module.load_function("square")?;

    let first = ctx.default_stream();
    let second: Arc<CudaStream> = first.fork()?;

    // saxpy on the first stream.
    let n = 10_000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let a = 3.0f32;
    let dx = first.clone_htod(&x)?;
    let mut dy = first.clone_htod(&y)?;
    let n_i32 = n as i32;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    unsafe {
        first
            .launch_builder(&saxpy)
            .arg(&a)
            .arg(&dx)
            .arg(&mut dy)
            .arg(&n_i32)
            .launch(cfg)?;
    }

    // A shared-memory reduction on the second stream, concurrently.
    let m = 5_000usize;
    let values: Vec<i32> = (0..m as i32).map(|i| (i * 7919) % 1000 - 500).collect();
    let din = second.clone_htod(&values)?;
    let mut total = second.alloc_zeros::<u64>(1)?;
    let m_i32 = m as i32;
    let threads = 256u32;
    let cfg = LaunchConfig {
        grid_dim: ((m as u32).div_ceil(threads), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: threads * 4,
    };
    unsafe {
        second
            .launch_builder(&block_sum)
            .arg(&din)
            .arg(&mut total)
            .arg(&m_i32)
            .launch(cfg)?;
    }

    // Double precision after the first stream's saxpy, through an event.
    let k = 777usize;
    let v: Vec<f64> = (0..k).map(|i| i as f64 / 3.0).collect();
    let mut dv = second.clone_htod(&v)?;
    let saxpy_done = first.record_event(None)?;
    second.wait(&saxpy_done)?;
    let k_i32 = k as i32;
    unsafe {
        second
            .launch_builder(&square)
            .arg(&mut dv)
            .arg(&k_i32)
            .launch(LaunchConfig::for_num_elems(k as u32))?;
    }

    let got_y = first.clone_dtoh(&dy)?;
    let want_y: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a * x + y).collect();
    check("saxpy", &got_y, &want_y)?;

    let got_total = second.clone_dtoh(&total)?;
    // The kernel's sum is of i32 values reinterpreted as u64 per block, as the CUDA C says.
    let want_total = values
        .chunks(threads as usize)
        .map(|c| c.iter().sum::<i32>() as i64 as u64)
        .fold(0u64, u64::wrapping_add);
    check("block_sum", &got_total, &[want_total])?;

    let got_v = second.clone_dtoh(&dv)?;
    let want_v: Vec<f64> = v.iter().map(|v| v.mul_add(*v, 0.5)).collect();
    check("square", &got_v, &want_v)?;

    // The module global the kernels counted their launches in.
    let launches = module.get_global("launches", &second)?;
    let launches = unsafe { launches.transmute::<u32>(1) }.ok_or("global too small")?;
    let got = second.clone_dtoh(&launches)?;
    check("launches", &got, &[2])?;

    // A device-to-device copy and a host round trip through a slice of it.
    let mut copy = first.alloc_zeros::<f32>(n)?;
    first.memcpy_dtod(&dy, &mut copy)?;
    let tail = first.clone_dtoh(&copy.slice(n - 10..))?;
    check("dtod", &tail, &want_y[n - 10..])?;

    // The calling thread's default stream (CU_STREAM_PER_THREAD), as cudarc offers it.
    let own = ctx.per_thread_stream();
    let mut dz = own.clone_htod(&y)?;
    unsafe {
        own.launch_builder(&saxpy)
            .arg(&a)
            .arg(&dx)
            .arg(&mut dz)
            .arg(&n_i32)
            .launch(LaunchConfig::for_num_elems(n as u32))?;
    }
    check(
        "saxpy on the per-thread stream",
        &own.clone_dtoh(&dz)?,
        &want_y,
    )?;

    ctx.synchronize()?;
    Ok(())
}
