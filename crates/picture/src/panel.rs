//! Panels: boxes that know their size and draw themselves at a point, and
//! the ways to put them together (columns, rows, captions, legends).

use crate::palette::{Color, Fill, Role};
use crate::svg::{Drawing, Stroke, Svg, TextStyle};

/// Something drawn in a box of a known size.
pub trait Panel {
    /// Width and height in pixels.
    fn size(&self) -> (f64, f64);
    /// Draws the panel with its top-left corner at `(x, y)`.
    fn draw(&self, svg: &mut Svg, x: f64, y: f64);
}

/// The margin around a whole picture.
pub const MARGIN: f64 = 12.0;

/// Draws `panel` as a whole picture, with a margin on white.
pub fn render(panel: &dyn Panel) -> Drawing {
    let (w, h) = panel.size();
    let mut svg = Svg::new();
    panel.draw(&mut svg, MARGIN, MARGIN);
    svg.finish(w + 2.0 * MARGIN, h + 2.0 * MARGIN)
}

/// Panels one below the other.
pub struct Column {
    parts: Vec<Box<dyn Panel>>,
    gap: f64,
}

impl Column {
    /// An empty column whose parts are `gap` pixels apart.
    pub fn new(gap: f64) -> Column {
        Column {
            parts: Vec::new(),
            gap,
        }
    }

    /// Adds a part at the bottom.
    pub fn push(&mut self, part: impl Panel + 'static) -> &mut Column {
        self.parts.push(Box::new(part));
        self
    }

    /// Adds a boxed part at the bottom.
    pub fn push_boxed(&mut self, part: Box<dyn Panel>) -> &mut Column {
        self.parts.push(part);
        self
    }

    /// Whether the column has no parts.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

impl Panel for Column {
    fn size(&self) -> (f64, f64) {
        let mut w: f64 = 0.0;
        let mut h = 0.0;
        for (i, p) in self.parts.iter().enumerate() {
            let (pw, ph) = p.size();
            w = w.max(pw);
            h += ph + if i > 0 { self.gap } else { 0.0 };
        }
        (w, h)
    }

    fn draw(&self, svg: &mut Svg, x: f64, mut y: f64) {
        for p in &self.parts {
            p.draw(svg, x, y);
            y += p.size().1 + self.gap;
        }
    }
}

/// Panels side by side, aligned at the top.
pub struct Row {
    parts: Vec<Box<dyn Panel>>,
    gap: f64,
}

impl Row {
    /// An empty row whose parts are `gap` pixels apart.
    pub fn new(gap: f64) -> Row {
        Row {
            parts: Vec::new(),
            gap,
        }
    }

    /// Adds a part at the right.
    pub fn push(&mut self, part: impl Panel + 'static) -> &mut Row {
        self.parts.push(Box::new(part));
        self
    }

    /// Adds a boxed part at the right.
    pub fn push_boxed(&mut self, part: Box<dyn Panel>) -> &mut Row {
        self.parts.push(part);
        self
    }

    /// Whether the row has no parts.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

impl Panel for Row {
    fn size(&self) -> (f64, f64) {
        let mut w = 0.0;
        let mut h: f64 = 0.0;
        for (i, p) in self.parts.iter().enumerate() {
            let (pw, ph) = p.size();
            h = h.max(ph);
            w += pw + if i > 0 { self.gap } else { 0.0 };
        }
        (w, h)
    }

    fn draw(&self, svg: &mut Svg, mut x: f64, y: f64) {
        for p in &self.parts {
            p.draw(svg, x, y);
            x += p.size().0 + self.gap;
        }
    }
}

/// Lines of text in one style.
pub struct Text {
    lines: Vec<String>,
    style: TextStyle,
}

impl Text {
    /// `text` split at newlines, drawn in `style`.
    pub fn new(text: &str, style: TextStyle) -> Text {
        Text {
            lines: text.lines().map(str::to_string).collect(),
            style,
        }
    }

    /// A title line.
    pub fn title(text: &str) -> Text {
        Text::new(text, TextStyle::TITLE)
    }

    /// Body text.
    pub fn body(text: &str) -> Text {
        Text::new(text, TextStyle::BODY)
    }

    fn line_height(&self) -> f64 {
        self.style.size * 1.35
    }
}

impl Panel for Text {
    fn size(&self) -> (f64, f64) {
        let w = self
            .lines
            .iter()
            .map(|l| self.style.width_of(l))
            .fold(0.0, f64::max);
        (w, self.lines.len() as f64 * self.line_height())
    }

    fn draw(&self, svg: &mut Svg, x: f64, y: f64) {
        let lh = self.line_height();
        for (i, line) in self.lines.iter().enumerate() {
            // Baseline about 80% down the line box.
            svg.text(x, y + i as f64 * lh + self.style.size, line, self.style);
        }
    }
}

/// One entry of a legend: a swatch and what it means.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// The swatch's fill.
    pub fill: Fill,
    /// What the fill means here.
    pub label: String,
}

impl LegendEntry {
    /// An entry for `role` with its usual meaning.
    pub fn role(role: Role) -> LegendEntry {
        LegendEntry {
            fill: role.fill(),
            label: role.meaning().to_string(),
        }
    }

    /// An entry for `role` with this picture's wording.
    pub fn role_as(role: Role, label: &str) -> LegendEntry {
        LegendEntry {
            fill: role.fill(),
            label: label.to_string(),
        }
    }
}

/// A legend: swatches with their meanings, in one row.
pub struct Legend {
    entries: Vec<LegendEntry>,
}

const SWATCH: f64 = 12.0;

impl Legend {
    /// A legend of `entries`, in order.
    pub fn new(entries: Vec<LegendEntry>) -> Legend {
        Legend { entries }
    }

    fn entry_width(e: &LegendEntry) -> f64 {
        SWATCH + 6.0 + TextStyle::BODY.width_of(&e.label) + 16.0
    }
}

impl Panel for Legend {
    fn size(&self) -> (f64, f64) {
        let w = self.entries.iter().map(Legend::entry_width).sum();
        (w, SWATCH + 4.0)
    }

    fn draw(&self, svg: &mut Svg, mut x: f64, y: f64) {
        svg.begin_group("legend");
        for e in &self.entries {
            svg.rect(
                x,
                y + 1.0,
                SWATCH,
                SWATCH,
                e.fill,
                Some(Stroke::solid(Color::RULE, 1.0)),
                None,
            );
            svg.text(x + SWATCH + 6.0, y + SWATCH, &e.label, TextStyle::BODY);
            x += Legend::entry_width(e);
        }
        svg.end_group();
    }
}

/// A finished picture is a panel too, so pictures made separately can be
/// put together.
impl Panel for Drawing {
    fn size(&self) -> (f64, f64) {
        self.size
    }

    fn draw(&self, svg: &mut Svg, x: f64, y: f64) {
        svg.embed(self, x, y);
    }
}

/// Empty space.
pub struct Spacer(pub f64, pub f64);

impl Panel for Spacer {
    fn size(&self) -> (f64, f64) {
        (self.0, self.1)
    }

    fn draw(&self, _svg: &mut Svg, _x: f64, _y: f64) {}
}
