//! NVIDIA's fatbinary container, as nvcc, `fatbinary` and nvFatbin write it and as
//! `cuModuleLoadFatBinary`, `cuModuleLoadData` and `cuLibraryLoadData` receive it: a header
//! (magic 0xBA55ED50) and entries of PTX or machine code (ELF cubins) for one architecture
//! each, optionally compressed (LZ4 blocks, or zstd frames from CUDA 12.8's size mode). nvcc's
//! host code registers it through a wrapper (magic 0x466243B1) that points at the container.
//!
//! NVIDIA does not document the layout; what is read here is the part every producer agrees
//! on (see docs/decisions/0172-fatbinaries.md). Only the CUDA driver API uses it today; it is
//! public so that a runtime-API library can read the fatbinaries nvcc embeds.

use std::borrow::Cow;

/// The container's magic, little-endian at offset 0.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// `__fatBinC_Wrapper_t`'s magic (fatbinary_section.h: FATBINC_MAGIC).
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// Bytes of the container header: magic, version, header size, size of the entries.
pub const HEADER_LEN: usize = 16;
/// Bytes of `__fatBinC_Wrapper_t` on a 64-bit host: magic, version, data, filename.
pub const WRAPPER_LEN: usize = 24;

/// The smallest entry header that holds every field read here.
const ENTRY_HEADER_MIN: usize = 64;
/// Entry kinds.
const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
/// Entry flags that say how the payload is compressed.
const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;
/// A payload that claims more than this when decompressed is refused rather than allocated.
const MAX_UNCOMPRESSED: u64 = 1 << 32;

/// Why a fatbinary cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FatbinError {
    #[error("not a fatbinary: magic {0:#010x}, expected {FATBIN_MAGIC:#010x}")]
    BadMagic(u32),
    #[error("not a fatbinary wrapper: magic {0:#010x}, expected {WRAPPER_MAGIC:#010x}")]
    BadWrapperMagic(u32),
    #[error("fatbinary wrapper version {0} (1 and 2 are known)")]
    BadWrapperVersion(u32),
    #[error("fatbinary header size {0} is smaller than {HEADER_LEN}")]
    BadHeaderSize(u16),
    #[error("fatbinary truncated: {what} at offset {offset} needs {need} bytes, {have} are there")]
    Truncated {
        what: &'static str,
        offset: usize,
        need: u64,
        have: usize,
    },
    #[error("fatbinary entry {index}: header size {size} is smaller than {ENTRY_HEADER_MIN}")]
    BadEntryHeader { index: usize, size: u32 },
    #[error("fatbinary entry {index} (arch {arch}): unknown compression flags {flags:#x}")]
    UnknownCompression { index: usize, arch: u32, flags: u64 },
    #[error("fatbinary entry {index} (arch {arch}): {codec} payload does not decompress: {reason}")]
    Decompress {
        index: usize,
        arch: u32,
        codec: &'static str,
        reason: String,
    },
    #[error(
        "fatbinary entry {index} (arch {arch}): decompressed to {got} bytes, the header says {want}"
    )]
    SizeMismatch {
        index: usize,
        arch: u32,
        got: u64,
        want: u64,
    },
    #[error("fatbinary entry {index} (arch {arch}): PTX is not UTF-8 text")]
    PtxNotText { index: usize, arch: u32 },
}

pub type Result<T> = std::result::Result<T, FatbinError>;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// PTX text for the virtual architecture `compute_<arch>`.
    Ptx,
    /// A cubin (ELF) of machine code for `sm_<arch>`.
    Elf,
    /// Something else (LTO-IR, ...), by its kind number.
    Other(u16),
}

/// How an entry's payload is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    /// An LZ4 block (no frame); the header gives the decompressed size.
    Lz4,
    /// A zstd frame.
    Zstd,
}

/// One entry of a container, borrowing its payload.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// Position in the container, for messages.
    pub index: usize,
    pub kind: EntryKind,
    /// The architecture as CUDA numbers it: 80 for `compute_80`/`sm_80`.
    pub arch: u32,
    /// The entry's flag word (64-bit, host OS, debug, compression, ...).
    pub flags: u64,
    pub compression: Compression,
    /// The payload as stored (compressed or not, padding included when not).
    pub stored: &'a [u8],
    /// The payload's size once decompressed (0 when not compressed).
    pub uncompressed_size: u64,
}

impl<'a> Entry<'a> {
    /// The payload, decompressed where it is compressed.
    pub fn payload(&self) -> Result<Cow<'a, [u8]>> {
        let codec = match self.compression {
            Compression::None => return Ok(Cow::Borrowed(self.stored)),
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "zstd",
        };
        let failed = |reason: String| FatbinError::Decompress {
            index: self.index,
            arch: self.arch,
            codec,
            reason,
        };
        if self.uncompressed_size > MAX_UNCOMPRESSED {
            return Err(failed(format!(
                "{} bytes claimed when decompressed",
                self.uncompressed_size
            )));
        }
        let out = match self.compression {
            Compression::Lz4 => {
                lz4_flex::block::decompress(self.stored, self.uncompressed_size as usize)
                    .map_err(|e| failed(e.to_string()))?
            }
            _ => {
                let mut out = Vec::with_capacity(self.uncompressed_size as usize);
                let mut decoder = ruzstd::decoding::StreamingDecoder::new(self.stored)
                    .map_err(|e| failed(e.to_string()))?;
                std::io::Read::read_to_end(&mut decoder, &mut out)
                    .map_err(|e| failed(e.to_string()))?;
                out
            }
        };
        if out.len() as u64 != self.uncompressed_size {
            return Err(FatbinError::SizeMismatch {
                index: self.index,
                arch: self.arch,
                got: out.len() as u64,
                want: self.uncompressed_size,
            });
        }
        Ok(Cow::Owned(out))
    }

    /// The PTX text of a PTX entry, without the NUL padding that follows it.
    pub fn ptx(&self) -> Result<String> {
        let payload = self.payload()?;
        let end = payload
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(payload.len());
        String::from_utf8(payload[..end].to_vec()).map_err(|_| FatbinError::PtxNotText {
            index: self.index,
            arch: self.arch,
        })
    }
}

/// A parsed container.
#[derive(Debug, Clone)]
pub struct Fatbin<'a> {
    entries: Vec<Entry<'a>>,
    len: usize,
}

fn u16_at(data: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes([data[offset], data[offset + 1]])
}

fn u32_at(data: &[u8], offset: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&data[offset..offset + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(data: &[u8], offset: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&data[offset..offset + 8]);
    u64::from_le_bytes(b)
}

/// `data[offset..offset + need]`, or the error naming what was cut short.
fn slice<'a>(data: &'a [u8], what: &'static str, offset: usize, need: u64) -> Result<&'a [u8]> {
    let have = data.len().saturating_sub(offset);
    match usize::try_from(need) {
        Ok(n) if n <= have => Ok(&data[offset..offset + n]),
        _ => Err(FatbinError::Truncated {
            what,
            offset,
            need,
            have,
        }),
    }
}

/// The container's total length (header and entries) from its first [`HEADER_LEN`] bytes:
/// how much to read from a pointer that C code handed over without a size.
pub fn container_len(header: &[u8; HEADER_LEN]) -> Result<u64> {
    let magic = u32_at(header, 0);
    if magic != FATBIN_MAGIC {
        return Err(FatbinError::BadMagic(magic));
    }
    let header_len = u16_at(header, 6);
    if usize::from(header_len) < HEADER_LEN {
        return Err(FatbinError::BadHeaderSize(header_len));
    }
    Ok(u64::from(header_len).saturating_add(u64_at(header, 8)))
}

/// What a `__fatBinC_Wrapper_t` holds: its version and the address of the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrapper {
    pub version: u32,
    pub data: u64,
}

/// Reads a `__fatBinC_Wrapper_t` (64-bit host layout) from its bytes.
pub fn parse_wrapper(bytes: &[u8; WRAPPER_LEN]) -> Result<Wrapper> {
    let magic = u32_at(bytes, 0);
    if magic != WRAPPER_MAGIC {
        return Err(FatbinError::BadWrapperMagic(magic));
    }
    let version = u32_at(bytes, 4);
    if !(1..=2).contains(&version) {
        return Err(FatbinError::BadWrapperVersion(version));
    }
    Ok(Wrapper {
        version,
        data: u64_at(bytes, 8),
    })
}

impl<'a> Fatbin<'a> {
    /// Parses the container at the start of `data` (which may continue past it).
    pub fn parse(data: &'a [u8]) -> Result<Fatbin<'a>> {
        let header: &[u8; HEADER_LEN] = slice(data, "header", 0, HEADER_LEN as u64)?
            .try_into()
            .map_err(|_| FatbinError::Truncated {
                what: "header",
                offset: 0,
                need: HEADER_LEN as u64,
                have: data.len(),
            })?;
        let len = container_len(header)?;
        let start = usize::from(u16_at(header, 6));
        let all = slice(data, "entries", 0, len)?;
        let mut entries = Vec::new();
        let mut offset = start;
        while offset < all.len() {
            let index = entries.len();
            let head = slice(all, "entry header", offset, 16)?;
            let header_size = u32_at(head, 4);
            if (header_size as usize) < ENTRY_HEADER_MIN {
                return Err(FatbinError::BadEntryHeader {
                    index,
                    size: header_size,
                });
            }
            let head = slice(all, "entry header", offset, u64::from(header_size))?;
            let padded = u64_at(head, 8);
            let compressed_size = u32_at(head, 16);
            let arch = u32_at(head, 28);
            let flags = u64_at(head, 40);
            let uncompressed_size = u64_at(head, 56);
            let compression = match flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD) {
                0 => Compression::None,
                FLAG_COMPRESSED_LZ4 => Compression::Lz4,
                FLAG_COMPRESSED_ZSTD => Compression::Zstd,
                _ => {
                    return Err(FatbinError::UnknownCompression { index, arch, flags });
                }
            };
            let payload_at = offset + header_size as usize;
            let padded_payload = slice(all, "entry payload", payload_at, padded)?;
            // A compressed payload is followed by padding that is not part of the stream.
            let stored = match compression {
                Compression::None => padded_payload,
                _ if compressed_size == 0 => padded_payload,
                _ => slice(
                    padded_payload,
                    "compressed payload",
                    0,
                    u64::from(compressed_size),
                )?,
            };
            entries.push(Entry {
                index,
                kind: match u16_at(head, 0) {
                    KIND_PTX => EntryKind::Ptx,
                    KIND_ELF => EntryKind::Elf,
                    k => EntryKind::Other(k),
                },
                arch,
                flags,
                compression,
                stored,
                uncompressed_size: if compression == Compression::None {
                    0
                } else {
                    uncompressed_size
                },
            });
            offset = payload_at + padded_payload.len();
        }
        Ok(Fatbin {
            entries,
            len: all.len(),
        })
    }

    pub fn entries(&self) -> &[Entry<'a>] {
        &self.entries
    }

    /// Bytes the container occupies.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The PTX a driver of compute capability `cc` (major * 10 + minor) JIT-compiles, as
    /// CUDA chooses it: the highest virtual architecture not above the device's.
    pub fn best_ptx(&self, cc: u32) -> Option<&Entry<'a>> {
        self.entries
            .iter()
            .filter(|e| e.kind == EntryKind::Ptx && e.arch <= cc)
            .max_by_key(|e| (e.arch, std::cmp::Reverse(e.index)))
    }

    /// The architectures of the entries of one kind, ascending, each once.
    pub fn archs(&self, kind: EntryKind) -> Vec<u32> {
        let mut archs: Vec<u32> = self
            .entries
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.arch)
            .collect();
        archs.sort_unstable();
        archs.dedup();
        archs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A container in the layout NVIDIA's tools write, from (kind, arch, flags, stored
    /// payload, uncompressed size) entries with 72-byte headers.
    fn container(entries: &[(u16, u32, u64, Vec<u8>, u64)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (kind, arch, flags, payload, uncompressed) in entries {
            let padded = payload.len().div_ceil(8) * 8;
            let mut head = vec![0u8; 72];
            head[0..2].copy_from_slice(&kind.to_le_bytes());
            head[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
            head[4..8].copy_from_slice(&72u32.to_le_bytes());
            head[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
            let compressed = if *uncompressed > 0 { payload.len() } else { 0 };
            head[16..20].copy_from_slice(&(compressed as u32).to_le_bytes());
            head[28..32].copy_from_slice(&arch.to_le_bytes());
            head[40..48].copy_from_slice(&flags.to_le_bytes());
            head[56..64].copy_from_slice(&uncompressed.to_le_bytes());
            body.extend_from_slice(&head);
            body.extend_from_slice(payload);
            body.resize(body.len() + padded - payload.len(), 0);
        }
        let mut out = Vec::new();
        out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    const PTX52: &str = ".version 8.8\n.target sm_52\n.address_size 64\n// fifty-two\n";
    const PTX80: &str = ".version 8.8\n.target sm_80\n.address_size 64\n// eighty\n";
    const PTX90: &str = ".version 8.8\n.target sm_90\n.address_size 64\n// ninety\n";

    #[test]
    fn picks_the_highest_ptx_not_above_the_device() {
        let data = container(&[
            (KIND_PTX, 52, 0x11, PTX52.as_bytes().to_vec(), 0),
            (KIND_ELF, 80, 0x11, b"\x7fELF....".to_vec(), 0),
            (KIND_PTX, 90, 0x11, PTX90.as_bytes().to_vec(), 0),
            (KIND_PTX, 80, 0x11, PTX80.as_bytes().to_vec(), 0),
        ]);
        let fb = Fatbin::parse(&data).unwrap();
        assert_eq!(fb.len(), data.len());
        assert_eq!(fb.entries().len(), 4);
        assert_eq!(fb.archs(EntryKind::Ptx), [52, 80, 90]);
        assert_eq!(fb.archs(EntryKind::Elf), [80]);
        assert_eq!(fb.best_ptx(80).unwrap().ptx().unwrap(), PTX80);
        assert_eq!(fb.best_ptx(86).unwrap().ptx().unwrap(), PTX80);
        assert_eq!(fb.best_ptx(75).unwrap().ptx().unwrap(), PTX52);
        assert_eq!(fb.best_ptx(100).unwrap().ptx().unwrap(), PTX90);
        assert!(fb.best_ptx(50).is_none());
    }

    #[test]
    fn decompresses_lz4_and_zstd_payloads() {
        let text = PTX80.repeat(20);
        let lz4 = lz4_flex::block::compress(text.as_bytes());
        let zstd = ruzstd::encoding::compress_to_vec(
            text.as_bytes(),
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        assert!(lz4.len() < text.len() && zstd.len() < text.len());
        let n = text.len() as u64;
        let data = container(&[
            (KIND_PTX, 70, 0x11 | FLAG_COMPRESSED_LZ4, lz4, n),
            (KIND_PTX, 80, 0x11 | FLAG_COMPRESSED_ZSTD, zstd, n),
        ]);
        let fb = Fatbin::parse(&data).unwrap();
        assert_eq!(fb.entries()[0].compression, Compression::Lz4);
        assert_eq!(fb.entries()[0].ptx().unwrap(), text);
        assert_eq!(fb.entries()[1].compression, Compression::Zstd);
        assert_eq!(fb.best_ptx(80).unwrap().ptx().unwrap(), text);
    }

    #[test]
    fn damaged_containers_give_typed_errors() {
        let good = container(&[(KIND_PTX, 80, 0x11, PTX80.as_bytes().to_vec(), 0)]);
        assert!(matches!(
            Fatbin::parse(&good[..10]),
            Err(FatbinError::Truncated { what: "header", .. })
        ));
        assert!(matches!(
            Fatbin::parse(&good[..good.len() - 1]),
            Err(FatbinError::Truncated {
                what: "entries",
                ..
            })
        ));
        let mut bad = good.clone();
        bad[0] ^= 1;
        assert!(matches!(Fatbin::parse(&bad), Err(FatbinError::BadMagic(_))));
        let mut bad = good.clone();
        bad[16 + 4..16 + 8].copy_from_slice(&8u32.to_le_bytes());
        assert!(matches!(
            Fatbin::parse(&bad),
            Err(FatbinError::BadEntryHeader { index: 0, size: 8 })
        ));
        let mut bad = good.clone();
        // The entry's payload runs past the container.
        bad[16 + 8..16 + 16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Fatbin::parse(&bad),
            Err(FatbinError::Truncated {
                what: "entry payload",
                ..
            })
        ));
        let both = container(&[(
            KIND_PTX,
            80,
            FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD,
            vec![1; 8],
            8,
        )]);
        assert!(matches!(
            Fatbin::parse(&both),
            Err(FatbinError::UnknownCompression { .. })
        ));
        // A compressed stream that is not one, and one that claims the wrong size.
        let garbage = container(&[(KIND_PTX, 80, FLAG_COMPRESSED_LZ4, vec![0xff; 16], 100)]);
        let fb = Fatbin::parse(&garbage).unwrap();
        assert!(matches!(
            fb.entries()[0].ptx(),
            Err(FatbinError::Decompress { codec: "LZ4", .. })
        ));
        let lz4 = lz4_flex::block::compress(PTX80.as_bytes());
        let short = container(&[(KIND_PTX, 80, FLAG_COMPRESSED_LZ4, lz4, 4)]);
        let fb = Fatbin::parse(&short).unwrap();
        assert!(fb.entries()[0].ptx().is_err());
        let huge = container(&[(KIND_PTX, 80, FLAG_COMPRESSED_ZSTD, vec![0; 8], u64::MAX)]);
        let fb = Fatbin::parse(&huge).unwrap();
        assert!(matches!(
            fb.entries()[0].payload(),
            Err(FatbinError::Decompress { codec: "zstd", .. })
        ));
        let not_text = container(&[(KIND_PTX, 80, 0, vec![0xc3, 0x28, 0, 0], 0)]);
        let fb = Fatbin::parse(&not_text).unwrap();
        assert_eq!(
            fb.entries()[0].ptx(),
            Err(FatbinError::PtxNotText { index: 0, arch: 80 })
        );
    }

    #[test]
    fn reads_the_wrapper_nvcc_registers() {
        let mut w = [0u8; WRAPPER_LEN];
        w[0..4].copy_from_slice(&WRAPPER_MAGIC.to_le_bytes());
        w[4..8].copy_from_slice(&1u32.to_le_bytes());
        w[8..16].copy_from_slice(&0x1234_5678u64.to_le_bytes());
        assert_eq!(
            parse_wrapper(&w),
            Ok(Wrapper {
                version: 1,
                data: 0x1234_5678
            })
        );
        w[4..8].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(parse_wrapper(&w), Err(FatbinError::BadWrapperVersion(7)));
        w[0] ^= 1;
        assert!(matches!(
            parse_wrapper(&w),
            Err(FatbinError::BadWrapperMagic(_))
        ));
    }
}
