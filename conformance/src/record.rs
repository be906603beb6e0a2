//! Recorded NVIDIA results (`--record-cuda`): what each case gave on a real GPU through the CUDA
//! driver, and the comparison of a ptxvk run with such a record.
//!
//! A record names its GPU and driver and holds, per case, the outcome of the case's own check
//! against NVIDIA's outputs (a failure there means the reference disagrees with hardware) and
//! digests of each launch's inputs and outputs. Digests keep the file small enough to commit;
//! the inputs' digest makes sure only the same launch is compared.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Outcome;
use crate::launch::LaunchDigest;
use crate::runner::Report;

pub const FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub format: u32,
    pub gpu: String,
    pub driver: String,
    pub recorded_with: String,
    pub cases: Vec<RecordedCase>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedCase {
    pub name: String,
    /// `pass`, `fail` or `unsupported`: the case's check applied to NVIDIA's outputs.
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub launches: Vec<LaunchDigest>,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a ptxvk CUDA record: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
    #[error("{path} has record format {found}; this runner reads format {FORMAT}")]
    Format { path: String, found: u32 },
}

impl Record {
    /// The results of target `target` of `report` (the CUDA run). Only cases that made
    /// launches through [`crate::launch::execute`] ran on the backend; the others are left out.
    pub fn from_report(report: &Report, target: usize, gpu: &str, driver: &str) -> Record {
        let cases = report
            .results
            .iter()
            .filter(|r| r.target == target && !r.launches.is_empty())
            .map(|r| {
                let (outcome, detail) = match &r.outcome {
                    Outcome::Pass => ("pass", None),
                    Outcome::Fail(w) => ("fail", Some(w.clone())),
                    Outcome::Unsupported(w) => ("unsupported", Some(w.clone())),
                };
                RecordedCase {
                    name: r.name.clone(),
                    outcome: outcome.into(),
                    detail,
                    launches: r.launches.clone(),
                }
            })
            .collect();
        Record {
            format: FORMAT,
            gpu: gpu.into(),
            driver: driver.into(),
            recorded_with: format!("ptxvk-conformance {}", env!("CARGO_PKG_VERSION")),
            cases,
        }
    }

    pub fn load(path: &Path) -> Result<Record, RecordError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| RecordError::Read {
            path: p.clone(),
            source,
        })?;
        Record::parse(&p, &text)
    }

    pub fn parse(path: &str, text: &str) -> Result<Record, RecordError> {
        // The format number first, so an old or new file gets a clear message.
        #[derive(Deserialize)]
        struct Header {
            format: u32,
        }
        let h: Header = serde_json::from_str(text).map_err(|source| RecordError::Parse {
            path: path.into(),
            source,
        })?;
        if h.format != FORMAT {
            return Err(RecordError::Format {
                path: path.into(),
                found: h.format,
            });
        }
        serde_json::from_str(text).map_err(|source| RecordError::Parse {
            path: path.into(),
            source,
        })
    }

    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        std::fs::write(path, text).map_err(|source| RecordError::Write {
            path: path.display().to_string(),
            source,
        })
    }
}

/// How a ptxvk run compares with a record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    pub gpu: String,
    pub driver: String,
    /// Cases whose every launch gave NVIDIA's bits.
    pub same: Vec<String>,
    /// Cases with a launch whose outputs differ from NVIDIA's (not a failure by itself: the
    /// case's expectation may allow it, e.g. NaN payloads or approximate instructions).
    pub differs: Vec<String>,
    /// Cases the record does not have.
    pub not_recorded: Vec<String>,
    /// Cases recorded for other inputs (the PTX or inputs changed since).
    pub stale: Vec<String>,
    /// Recorded cases whose check failed on NVIDIA: the reference disagrees with hardware.
    pub disputed: Vec<(String, String)>,
}

/// Compares target `target` of `report` with `record`. Cases that made no launch through
/// [`crate::launch::execute`] are left out.
pub fn compare(record: &Record, report: &Report, target: usize) -> Comparison {
    let by_name: std::collections::HashMap<&str, &RecordedCase> =
        record.cases.iter().map(|c| (c.name.as_str(), c)).collect();
    let mut c = Comparison {
        gpu: record.gpu.clone(),
        driver: record.driver.clone(),
        ..Comparison::default()
    };
    for r in report.results.iter().filter(|r| r.target == target) {
        if r.launches.is_empty() {
            continue;
        }
        let Some(rec) = by_name.get(r.name.as_str()) else {
            c.not_recorded.push(r.name.clone());
            continue;
        };
        if rec.outcome == "fail" {
            c.disputed
                .push((r.name.clone(), rec.detail.clone().unwrap_or_default()));
        }
        let same_inputs = rec.launches.len() == r.launches.len()
            && rec
                .launches
                .iter()
                .zip(&r.launches)
                .all(|(a, b)| a.input == b.input);
        if !same_inputs {
            c.stale.push(r.name.clone());
        } else if rec
            .launches
            .iter()
            .zip(&r.launches)
            .all(|(a, b)| a.output == b.output)
        {
            c.same.push(r.name.clone());
        } else {
            c.differs.push(r.name.clone());
        }
    }
    c
}

impl Comparison {
    /// A short report for people.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "compared with NVIDIA ({}, {}): {} cases with the same bits, {} differ, {} not recorded, {} recorded for other inputs",
            self.gpu,
            self.driver,
            self.same.len(),
            self.differs.len(),
            self.not_recorded.len(),
            self.stale.len()
        );
        for d in &self.differs {
            s.push_str(&format!("\n  differs from NVIDIA: {d}"));
        }
        for (name, why) in &self.disputed {
            s.push_str(&format!("\n  the reference fails on NVIDIA: {name}: {why}"));
        }
        s
    }
}
