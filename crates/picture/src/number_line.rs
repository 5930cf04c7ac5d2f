//! Ranges on a number line: one bar per row over a shared integer axis.

use crate::palette::{Color, Fill};
use crate::panel::Panel;
use crate::svg::{Stroke, Svg, TextStyle};

/// One bar: an inclusive integer interval with its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Text at the left of the row.
    pub label: String,
    /// The first and last integer covered (inclusive); `None` draws no bar
    /// (an empty or unbounded range, said in `note`).
    pub interval: Option<(i64, i64)>,
    /// The bar's fill.
    pub fill: Fill,
    /// Text at the right of the bar.
    pub note: String,
    /// Drawn with a thick outline (the bar that decided a range).
    pub emphasised: bool,
}

/// Bars over one axis from `lo` to `hi` (inclusive).
pub struct NumberLine {
    id: String,
    bars: Vec<Bar>,
    lo: i64,
    hi: i64,
    label_width: f64,
    note_width: f64,
}

const AXIS_WIDTH: f64 = 420.0;
const ROW: f64 = 22.0;

impl NumberLine {
    /// A number line wide enough for every bar's interval (and `lo..=hi`
    /// when given). `id` names the anchors: `id:K:lo` and `id:K:hi` at the
    /// ends of bar `K`, `id:K` at its middle.
    pub fn new(id: &str, bars: Vec<Bar>, span: Option<(i64, i64)>) -> NumberLine {
        let mut lo = span.map_or(i64::MAX, |s| s.0);
        let mut hi = span.map_or(i64::MIN, |s| s.1);
        for b in &bars {
            if let Some((a, z)) = b.interval {
                lo = lo.min(a);
                hi = hi.max(z);
            }
        }
        if lo > hi {
            lo = 0;
            hi = 1;
        }
        let label_width = bars
            .iter()
            .map(|b| TextStyle::LABEL.width_of(&b.label))
            .fold(0.0, f64::max)
            + 10.0;
        let note_width = bars
            .iter()
            .map(|b| TextStyle::LABEL.width_of(&b.note))
            .fold(0.0, f64::max)
            + 10.0;
        NumberLine {
            id: id.to_string(),
            bars,
            lo,
            hi,
            label_width,
            note_width,
        }
    }

    /// The x offset (within the axis) of the left edge of integer `v`.
    fn at(&self, v: i64) -> f64 {
        // Each integer is a unit cell: hi - lo + 1 of them.
        let cells = (self.hi as f64 - self.lo as f64) + 1.0;
        (v as f64 - self.lo as f64) / cells * AXIS_WIDTH
    }
}

impl Panel for NumberLine {
    fn size(&self) -> (f64, f64) {
        (
            self.label_width + AXIS_WIDTH + self.note_width,
            (self.bars.len() as f64 + 1.5) * ROW,
        )
    }

    fn draw(&self, svg: &mut Svg, x: f64, y: f64) {
        svg.begin_group(&format!("number-line {}", self.id));
        let ax = x + self.label_width;
        let axis_y = y + self.bars.len() as f64 * ROW + 6.0;
        svg.line(
            (ax, axis_y),
            (ax + AXIS_WIDTH, axis_y),
            Stroke::solid(Color::INK, 1.0),
            false,
        );
        // Ticks: about ten, at round steps.
        let span = (self.hi - self.lo + 1).max(1) as f64;
        let raw = span / 10.0;
        let mag = 10f64.powf(raw.log10().floor().max(0.0));
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * mag)
            .max(1.0) as i64;
        let first = self.lo.div_euclid(step) * step;
        let mut t = first;
        while t <= self.hi {
            if t >= self.lo {
                let tx = ax + self.at(t) + self.at(self.lo + 1) / 2.0;
                svg.line(
                    (tx, axis_y),
                    (tx, axis_y + 4.0),
                    Stroke::solid(Color::INK, 1.0),
                    false,
                );
                svg.text(
                    tx,
                    axis_y + 15.0,
                    &t.to_string(),
                    TextStyle::LABEL.centred(),
                );
            }
            t = match t.checked_add(step) {
                Some(n) => n,
                None => break,
            };
        }
        for (k, b) in self.bars.iter().enumerate() {
            let by = y + k as f64 * ROW;
            svg.text(ax - 6.0, by + 14.0, &b.label, TextStyle::LABEL.right());
            let mut note_x = ax + AXIS_WIDTH + 6.0;
            if let Some((a, z)) = b.interval {
                let x0 = ax + self.at(a);
                let x1 = ax + self.at(z) + self.at(self.lo + 1);
                let stroke = if b.emphasised {
                    Stroke::solid(Color::INK, 2.5)
                } else {
                    Stroke::solid(Color::RULE, 1.0)
                };
                svg.rect(
                    x0,
                    by + 3.0,
                    (x1 - x0).max(2.0),
                    ROW - 8.0,
                    b.fill,
                    Some(stroke),
                    Some(&format!("{} = {a} ..= {z}", b.label)),
                );
                svg.anchor(
                    format!("{}:{k}:lo", self.id),
                    x0 + 1.0,
                    by + ROW / 2.0 - 1.0,
                );
                svg.anchor(
                    format!("{}:{k}:hi", self.id),
                    x1 - 1.0,
                    by + ROW / 2.0 - 1.0,
                );
                svg.anchor(
                    format!("{}:{k}", self.id),
                    (x0 + x1) / 2.0,
                    by + ROW / 2.0 - 1.0,
                );
                note_x = note_x.max(x1 + 6.0).min(ax + AXIS_WIDTH + 6.0);
            }
            svg.text(note_x, by + 14.0, &b.note, TextStyle::LABEL);
        }
        svg.end_group();
    }
}
