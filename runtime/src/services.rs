//! Device services: the printf FIFO and the device heap that kernels calling `vprintf`,
//! `malloc` or `free` use (`docs/decisions/0179-device-printf-and-heap.md`). One of each per
//! context, made at the first launch of such a kernel with the sizes the limits say then; the
//! FIFO is drained when no launch that may write it is in flight.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use ptxvk_translator::abi;

use crate::context::{Context, Vk};
use crate::error::{Error, Result};
use crate::memory::raw::{Place, RawBuffer};

/// A context limit (`cuCtxSetLimit`) that ptxvk honours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Bytes of the printf FIFO (`CU_LIMIT_PRINTF_FIFO_SIZE`, default 1 MiB).
    PrintfFifoSize,
    /// Bytes of the device heap (`CU_LIMIT_MALLOC_HEAP_SIZE`, default 8 MiB).
    MallocHeapSize,
}

/// Where device printf output goes: each call gets one or more whole lines.
pub type PrintfSink = Arc<dyn Fn(&[u8]) + Send + Sync>;

pub(crate) struct Slot {
    state: Mutex<State>,
}

struct State {
    fifo_bytes: u64,
    heap_bytes: u64,
    live: Option<Arc<Services>>,
    sink: Option<PrintfSink>,
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            state: Mutex::new(State {
                fifo_bytes: 1 << 20,
                heap_bytes: 8 << 20,
                live: None,
                sink: None,
            }),
        }
    }
}

/// The longest string (format or `%s` argument) read from device memory for one conversion,
/// so that a pointer at bytes without a NUL does not print a whole buffer.
const STRING_MAX: usize = 1 << 16;

/// The FIFO and the heap of a context.
pub(crate) struct Services {
    vk: Arc<Vk>,
    fifo: RawBuffer,
    heap: RawBuffer,
    sink: PrintfSink,
    inner: Mutex<Drain>,
}

struct Drain {
    /// Launches recorded that may write the FIFO and have not completed.
    pending: u32,
    /// Strings kernels can point at (formats, `%s` arguments), by device address.
    strings: HashMap<u64, Arc<[u8]>>,
    /// Modules' globals buffers whose services slot holds our addresses.
    written: Vec<Weak<RawBuffer>>,
}

impl Context {
    /// Sets a limit (`cuCtxSetLimit`). The FIFO's and the heap's sizes cannot change once a
    /// kernel that uses them has been launched (CUDA answers `CUDA_ERROR_INVALID_VALUE` then).
    pub fn set_limit(&self, limit: Limit, value: u64) -> Result<()> {
        let mut st = self
            .inner
            .services
            .state
            .lock()
            .map_err(|_| Error::DeviceLost)?;
        if st.live.is_some() && self.limit_locked(&st, limit) != value {
            return Err(Error::InvalidArgument(format!(
                "{limit:?} cannot change after a kernel that uses it was launched"
            )));
        }
        let heap_max = abi::HEAP_MAX_GRANULES * abi::HEAP_GRANULE;
        match limit {
            Limit::PrintfFifoSize => st.fifo_bytes = value.clamp(4096, u64::from(u32::MAX)),
            Limit::MallocHeapSize => st.heap_bytes = value.clamp(abi::HEAP_GRANULE, heap_max),
        }
        Ok(())
    }

    /// A limit's value (`cuCtxGetLimit`).
    pub fn limit(&self, limit: Limit) -> Result<u64> {
        let st = self
            .inner
            .services
            .state
            .lock()
            .map_err(|_| Error::DeviceLost)?;
        Ok(self.limit_locked(&st, limit))
    }

    fn limit_locked(&self, st: &State, limit: Limit) -> u64 {
        match limit {
            Limit::PrintfFifoSize => st.fifo_bytes,
            Limit::MallocHeapSize => st.heap_bytes,
        }
    }

    /// Where device printf output goes (by default the process's standard output, flushed
    /// after each drain).
    pub fn set_printf_sink(&self, sink: PrintfSink) -> Result<()> {
        let mut st = self
            .inner
            .services
            .state
            .lock()
            .map_err(|_| Error::DeviceLost)?;
        st.sink = Some(sink);
        Ok(())
    }

    /// The context's services, made now if this is the first launch that needs them, with
    /// `globals`' slot (at offset 0, `abi::GlobalsLayout::services`) holding their addresses
    /// and `strings` (offsets in `globals`) known to the formatter.
    pub(crate) fn services_for(
        &self,
        globals: &Arc<RawBuffer>,
        strings: &[(u64, Vec<u8>)],
    ) -> Result<Arc<Services>> {
        let services = {
            let mut st = self
                .inner
                .services
                .state
                .lock()
                .map_err(|_| Error::DeviceLost)?;
            match &st.live {
                Some(s) => s.clone(),
                None => {
                    let s = Arc::new(Services::new(self, &st)?);
                    st.live = Some(s.clone());
                    s
                }
            }
        };
        let write = {
            let mut d = services.inner.lock().map_err(|_| Error::DeviceLost)?;
            let done = d
                .written
                .iter()
                .any(|w| w.upgrade().is_some_and(|g| Arc::ptr_eq(&g, globals)));
            // Once per module: every kernel of it carries the same strings.
            if !done {
                d.written.retain(|w| w.strong_count() > 0);
                d.written.push(Arc::downgrade(globals));
                for (off, bytes) in strings {
                    d.strings
                        .insert(globals.address() + off, bytes.as_slice().into());
                }
            }
            !done
        };
        if write {
            let mut slot = [0u8; abi::SERVICES_BYTES as usize];
            let (f, h) = (abi::SERVICES_FIFO as usize, abi::SERVICES_HEAP as usize);
            slot[f..f + 8].copy_from_slice(&services.fifo.address().to_le_bytes());
            slot[h..h + 8].copy_from_slice(&services.heap.address().to_le_bytes());
            self.write_raw(globals, 0, &slot)?;
        }
        Ok(services)
    }
}

impl Services {
    fn new(ctx: &Context, st: &State) -> Result<Services> {
        let vk = ctx.vk();
        let fifo = RawBuffer::new(vk, abi::FIFO_HEADER + st.fifo_bytes, Place::Readback)?;
        let mut header = [0u8; abi::FIFO_HEADER as usize];
        let cap = st.fifo_bytes.min(u64::from(u32::MAX)) as u32;
        header[abi::FIFO_CAPACITY as usize..][..4].copy_from_slice(&cap.to_le_bytes());
        fifo.write_mapped(0, &header)?;
        let heap = Arc::new(RawBuffer::new(
            vk,
            abi::HEAP_HEADER + st.heap_bytes,
            Place::Device,
        )?);
        let granules = (st.heap_bytes / abi::HEAP_GRANULE) as u32;
        let mut header = [0u8; abi::HEAP_HEADER as usize];
        header[abi::HEAP_CAPACITY as usize..][..4].copy_from_slice(&granules.to_le_bytes());
        ctx.write_raw(&heap, 0, &header)?;
        let heap = Arc::try_unwrap(heap).map_err(|_| Error::DeviceLost)?;
        let sink = st.sink.clone().unwrap_or_else(|| Arc::new(stdout_sink));
        Ok(Services {
            vk: vk.clone(),
            fifo,
            heap,
            sink,
            inner: Mutex::new(Drain {
                pending: 0,
                strings: HashMap::new(),
                written: Vec::new(),
            }),
        })
    }

    /// Counts a launch that may write the FIFO; the returned value, dropped once the launch has
    /// completed, drains the FIFO if no other such launch is in flight.
    pub(crate) fn launch(self: &Arc<Self>) -> Result<InFlight> {
        let mut d = self.inner.lock().map_err(|_| Error::DeviceLost)?;
        d.pending += 1;
        Ok(InFlight(self.clone()))
    }

    /// Formats the FIFO's records and empties it; the device writes none meanwhile (the
    /// caller holds the lock that new launches take first).
    fn drain(&self, d: &Drain) {
        let mut header = [0u8; abi::FIFO_HEADER as usize];
        if self.fifo.read_mapped(0, &mut header).is_err() {
            return;
        }
        let word =
            |b: &[u8], at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let cursor = word(&header, abi::FIFO_CURSOR as usize);
        let cap = word(&header, abi::FIFO_CAPACITY as usize);
        if cursor == 0 {
            return;
        }
        let used = cursor.min(cap) as usize;
        let mut records = vec![0u8; used];
        if self
            .fifo
            .read_mapped(abi::FIFO_HEADER, &mut records)
            .is_err()
        {
            return;
        }
        // The string as it is now where the host can read the memory, else the module's
        // initial bytes of it (on devices whose memory the host does not map).
        let lookup = |addr: u64| -> Option<Cow<'_, [u8]>> {
            match self.vk.read_c_string(addr, STRING_MAX) {
                Some(s) => Some(Cow::Owned(s)),
                None => string_at(&d.strings, addr).map(Cow::Borrowed),
            }
        };
        let mut out = Vec::new();
        let mut at = 0usize;
        while at + abi::FIFO_RECORD_HEADER as usize <= used {
            let len = word(&records, at) as usize;
            let nargs = word(&records, at + 4) as usize;
            if len < abi::FIFO_RECORD_HEADER as usize || at + len > used {
                break;
            }
            let fmt = u64::from_le_bytes(records[at + 8..at + 16].try_into().unwrap_or([0; 8]));
            let args_at = at + abi::FIFO_RECORD_HEADER as usize;
            let args = &records[args_at..(args_at + nargs).min(at + len)];
            match lookup(fmt) {
                Some(f) => crate::printf::format(&mut out, &f, args, &lookup),
                None => out.extend_from_slice(format!("<printf format at {fmt:#x}>\n").as_bytes()),
            }
            at += len;
        }
        if !out.is_empty() {
            (self.sink)(&out);
        }
        // Emptied for the next launches; a cursor past the capacity means output was dropped,
        // as CUDA drops what does not fit.
        let _ = self
            .fifo
            .write_mapped(abi::FIFO_CURSOR, &0u32.to_le_bytes());
    }
}

/// The string a device address points into, from its byte on.
fn string_at(strings: &HashMap<u64, Arc<[u8]>>, addr: u64) -> Option<&[u8]> {
    if let Some(s) = strings.get(&addr) {
        return Some(s);
    }
    strings.iter().find_map(|(&base, s)| {
        let off = addr.checked_sub(base)?;
        s.get(usize::try_from(off).ok()?..)
    })
}

fn stdout_sink(bytes: &[u8]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

/// A launch that may write the FIFO (see [`Services::launch`]).
pub(crate) struct InFlight(Arc<Services>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let Ok(mut d) = self.0.inner.lock() else {
            return;
        };
        d.pending = d.pending.saturating_sub(1);
        if d.pending == 0 {
            self.0.drain(&d);
        }
    }
}
