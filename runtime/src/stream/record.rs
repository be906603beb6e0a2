//! Recording into a stream's open command buffer: the batch being recorded, the chunks small
//! uploads are packed into, and the `Recorder` one command is recorded through.

use std::any::Any;
use std::sync::Arc;

use ash::vk;

use super::status::StatusCheck;
use crate::context::Vk;
use crate::error::{Error, Result};
use crate::memory::raw::{Place, RawBuffer};

/// Size of the chunks small uploads (parameter blocks, small copies) are packed into.
const CHUNK: u64 = 64 * 1024;
/// Chunks a stream keeps for reuse.
const MAX_CHUNKS: usize = 16;
/// Alignment of each upload (the strictest kernel parameter alignment CUDA allows is 16; a
/// copy source is best aligned further).
const UPLOAD_ALIGN: u64 = 64;

/// Something work in flight uses, kept alive until the work completes.
pub(crate) type Keep = Arc<dyn Any + Send + Sync>;

pub(super) struct Recording {
    pub(super) cb: vk::CommandBuffer,
    pub(super) keep: Vec<Keep>,
    pub(super) checks: Vec<StatusCheck>,
    pub(super) commands: u32,
    pub(super) labels: Vec<String>,
    /// Pipelines dispatched for the first time (`wait.rs`).
    pub(super) first_dispatches: u32,
    /// The arena chunk this recording already holds.
    pub(super) chunk: Option<*const RawBuffer>,
}

/// Host-visible chunks that small uploads are packed into; a chunk is reused once no
/// submission holds it.
#[derive(Default)]
pub(super) struct Arena {
    chunks: Vec<Arc<RawBuffer>>,
    current: Option<(Arc<RawBuffer>, u64)>,
    /// The device memory of shared arenas that do not fit the device's (`spill.rs`).
    spill: Option<Arc<RawBuffer>>,
}

/// Lets one command be recorded into a stream's open command buffer.
pub(crate) struct Recorder<'a> {
    pub dev: &'a ash::Device,
    pub cb: vk::CommandBuffer,
    pub(super) vk: &'a Arc<Vk>,
    pub(super) rec: &'a mut Recording,
    pub(super) arena: &'a mut Arena,
}

impl Recorder<'_> {
    /// Keeps `k` alive until the command has completed.
    pub fn keep(&mut self, k: Keep) {
        self.rec.keep.push(k);
    }

    /// Reads a launch's status word once the command has completed.
    pub fn check(&mut self, c: StatusCheck) {
        self.rec.checks.push(c);
    }

    /// The device the command is recorded for.
    pub fn vk(&self) -> &Arc<Vk> {
        self.vk
    }

    /// Notes that the command dispatches a pipeline for the first time: waits for it get the
    /// compile allowance (`wait.rs`).
    pub fn first_dispatch(&mut self) {
        self.rec.first_dispatches += 1;
    }

    /// Names the command for timeout messages.
    pub fn label(&mut self, what: impl FnOnce() -> String) {
        if self.rec.labels.len() < 3 {
            self.rec.labels.push(what());
        }
    }

    /// Copies `bytes` into host-visible memory the command can read: (buffer, offset, address).
    pub fn upload(&mut self, bytes: &[u8]) -> Result<(vk::Buffer, u64, u64)> {
        let (buf, offset) = self.alloc(bytes.len() as u64)?;
        buf.write_mapped(offset, bytes)?;
        Ok((buf.handle(), offset, buf.address() + offset))
    }

    /// Orders the commands recorded next after those recorded so far.
    pub fn barrier(&mut self) {
        full_barrier(self.dev, self.cb);
    }

    /// At least `size` bytes of device memory for shared arenas (`spill.rs`): one buffer per
    /// stream, grown when a launch needs more. The stream's commands run one after another, so
    /// each launch has it to itself.
    pub fn spill_buffer(&mut self, size: u64) -> Result<Arc<RawBuffer>> {
        let buf = match &self.arena.spill {
            Some(b) if b.size() >= size => b.clone(),
            _ => {
                let b = Arc::new(RawBuffer::new(self.vk, size, Place::Device)?);
                self.arena.spill = Some(b.clone());
                b
            }
        };
        self.rec.keep.push(buf.clone());
        Ok(buf)
    }

    /// Reserves `size` bytes of host-visible memory, returned with its offset; the caller
    /// writes it before the command runs.
    pub fn alloc(&mut self, size: u64) -> Result<(Arc<RawBuffer>, u64)> {
        let size = size.max(1);
        if size > CHUNK / 4 {
            let b = Arc::new(RawBuffer::new(self.vk, size, Place::Upload)?);
            self.rec.keep.push(b.clone());
            return Ok((b, 0));
        }
        let fits = |used: u64| used.next_multiple_of(UPLOAD_ALIGN) + size <= CHUNK;
        if !matches!(&self.arena.current, Some((_, used)) if fits(*used)) {
            let reusable = self
                .arena
                .chunks
                .iter()
                .find(|c| Arc::strong_count(c) == 1)
                .cloned();
            let chunk = match reusable {
                Some(c) => c,
                None => {
                    let c = Arc::new(RawBuffer::new(self.vk, CHUNK, Place::Upload)?);
                    if self.arena.chunks.len() < MAX_CHUNKS {
                        self.arena.chunks.push(c.clone());
                    }
                    c
                }
            };
            self.arena.current = Some((chunk, 0));
        }
        let Some((chunk, used)) = self.arena.current.as_mut() else {
            return Err(Error::DeviceLost);
        };
        let offset = used.next_multiple_of(UPLOAD_ALIGN);
        *used = offset + size;
        let chunk = chunk.clone();
        if self.rec.chunk != Some(Arc::as_ptr(&chunk)) {
            self.rec.chunk = Some(Arc::as_ptr(&chunk));
            self.rec.keep.push(chunk.clone());
        }
        Ok((chunk, offset))
    }
}

/// Orders what is recorded next after everything recorded before (compute and copies).
pub(super) fn full_barrier(dev: &ash::Device, cb: vk::CommandBuffer) {
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(
            vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE,
        );
    let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
    // SAFETY: the caller records into its open command buffer.
    unsafe {
        dev.cmd_pipeline_barrier(
            cb,
            stages,
            stages,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        )
    };
}
