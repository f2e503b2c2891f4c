//! Figures: median and p95 of samples, printed as a Markdown table and written as JSON to
//! `target/bench/`.

use std::path::PathBuf;
use std::time::Duration;

#[derive(serde::Serialize)]
pub struct Figure {
    pub name: String,
    pub unit: String,
    pub median: f64,
    pub p95: f64,
    pub target: String,
    pub reference: Option<String>,
}

impl Figure {
    /// A figure from samples.
    pub fn from_samples(name: String, unit: &str, samples: Vec<f64>, target: &str) -> Self {
        let (median, p95) = stats(samples);
        Self {
            name,
            unit: unit.into(),
            median,
            p95,
            target: target.into(),
            reference: None,
        }
    }

    /// A figure measured once.
    pub fn single(name: String, unit: &str, value: f64, target: &str) -> Self {
        Self::from_samples(name, unit, vec![value], target)
    }

    pub fn beside(mut self, reference: String) -> Self {
        self.reference = Some(reference);
        self
    }
}

/// Median and p95.
pub fn stats(mut samples: Vec<f64>) -> (f64, f64) {
    assert!(!samples.is_empty(), "a figure needs samples");
    samples.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

pub fn median(samples: Vec<f64>) -> f64 {
    stats(samples).0
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn report(figures: &[Figure], file: &str) {
    println!("\n| figure | median | p95 | target | reference |\n|---|---|---|---|---|");
    for f in figures {
        println!(
            "| {} | {:.3} {} | {:.3} {} | {} | {} |",
            f.name,
            f.median,
            f.unit,
            f.p95,
            f.unit,
            f.target,
            f.reference.as_deref().unwrap_or("")
        );
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, serde_json::to_string_pretty(figures).unwrap()).unwrap();
    println!("\nwritten to {}", path.display());
}
