//! A minimal SVG writer: the shapes the pictures use, with deterministic
//! number formatting (snapshots compare the text) and named anchors that
//! tests look up to find where a cell was drawn.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::palette::{Color, Fill};

/// Horizontal alignment of a text run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at the point.
    Start,
    /// The text is centred on the point.
    Middle,
    /// The text ends at the point.
    End,
}

/// How a text run is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextStyle {
    /// Font size in pixels.
    pub size: f64,
    /// Alignment around the point.
    pub anchor: Anchor,
    /// Bold when true.
    pub bold: bool,
    /// Text colour.
    pub color: Color,
    /// Monospaced when true (indices, expressions).
    pub mono: bool,
}

impl TextStyle {
    /// Body text: 12 px, left aligned, dark grey.
    pub const BODY: TextStyle = TextStyle {
        size: 12.0,
        anchor: Anchor::Start,
        bold: false,
        color: Color::INK,
        mono: false,
    };

    /// A picture's title: 14 px bold.
    pub const TITLE: TextStyle = TextStyle {
        size: 14.0,
        bold: true,
        ..TextStyle::BODY
    };

    /// Small monospaced labels (indices on axes, cell labels).
    pub const LABEL: TextStyle = TextStyle {
        size: 10.0,
        mono: true,
        ..TextStyle::BODY
    };

    /// The same style centred on its point.
    pub const fn centred(self) -> TextStyle {
        TextStyle {
            anchor: Anchor::Middle,
            ..self
        }
    }

    /// The same style ending at its point.
    pub const fn right(self) -> TextStyle {
        TextStyle {
            anchor: Anchor::End,
            ..self
        }
    }

    /// Approximate width of `text` in this style, for layout without a
    /// font engine (wide enough for the usual sans and mono fonts).
    pub fn width_of(&self, text: &str) -> f64 {
        let per_char = if self.mono { 0.62 } else { 0.58 };
        text.chars().count() as f64 * self.size * per_char
    }
}

/// A line's stroke.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stroke {
    /// Colour of the line.
    pub color: Color,
    /// Width in pixels.
    pub width: f64,
    /// Dashed when true.
    pub dashed: bool,
}

impl Stroke {
    /// A thin solid line.
    pub const fn solid(color: Color, width: f64) -> Stroke {
        Stroke {
            color,
            width,
            dashed: false,
        }
    }

    /// A thin dashed line.
    pub const fn dashed(color: Color, width: f64) -> Stroke {
        Stroke {
            color,
            width,
            dashed: true,
        }
    }
}

/// An SVG document being written. Coordinates are pixels, y downwards.
#[derive(Debug)]
pub struct Svg {
    body: String,
    hatches: BTreeMap<String, (Color, Color)>,
    arrows: BTreeMap<String, Color>,
    anchors: BTreeMap<String, (f64, f64)>,
}

/// A finished picture: the SVG text and the named points drawn in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    /// The SVG document.
    pub svg: String,
    /// Width and height in pixels.
    pub size: (f64, f64),
    /// Named points (cell centres and the like), for tests and links.
    pub anchors: BTreeMap<String, (f64, f64)>,
}

impl Drawing {
    /// The point recorded under `name`.
    pub fn anchor(&self, name: &str) -> Option<(f64, f64)> {
        self.anchors.get(name).copied()
    }
}

/// Formats a coordinate with at most two decimals and no trailing zeros,
/// so the same picture always prints the same text.
pub fn num(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    let r = if r == 0.0 { 0.0 } else { r };
    let s = format!("{r:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Escapes text for SVG and HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

impl Default for Svg {
    fn default() -> Self {
        Svg::new()
    }
}

impl Svg {
    /// An empty document.
    pub fn new() -> Svg {
        Svg {
            body: String::new(),
            hatches: BTreeMap::new(),
            arrows: BTreeMap::new(),
            anchors: BTreeMap::new(),
        }
    }

    fn fill_attr(&mut self, fill: Fill) -> String {
        match fill {
            Fill::None => "none".to_string(),
            Fill::Solid(c) => c.hex(),
            Fill::Hatch { line, background } => {
                let id = format!("hatch-{}-{}", &line.hex()[1..], &background.hex()[1..]);
                self.hatches.insert(id.clone(), (line, background));
                format!("url(#{id})")
            }
        }
    }

    fn stroke_attrs(stroke: Option<Stroke>) -> String {
        match stroke {
            None => String::new(),
            Some(s) => {
                let dash = if s.dashed {
                    " stroke-dasharray=\"4 3\""
                } else {
                    ""
                };
                format!(
                    " stroke=\"{}\" stroke-width=\"{}\"{dash}",
                    s.color.hex(),
                    num(s.width)
                )
            }
        }
    }

    /// A rectangle; `title` becomes its tooltip.
    #[allow(clippy::too_many_arguments)]
    pub fn rect(
        &mut self,
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: Fill,
        stroke: Option<Stroke>,
        title: Option<&str>,
    ) {
        let fill = self.fill_attr(fill);
        let stroke = Self::stroke_attrs(stroke);
        let _ = write!(
            self.body,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"{stroke}",
            num(x),
            num(y),
            num(w),
            num(h)
        );
        match title {
            Some(t) => {
                let _ = writeln!(self.body, "><title>{}</title></rect>", escape(t));
            }
            None => self.body.push_str("/>\n"),
        }
    }

    /// A rounded rectangle (graph nodes).
    #[allow(clippy::too_many_arguments)]
    pub fn rounded_rect(
        &mut self,
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        radius: f64,
        fill: Fill,
        stroke: Option<Stroke>,
    ) {
        let fill = self.fill_attr(fill);
        let stroke = Self::stroke_attrs(stroke);
        let _ = writeln!(
            self.body,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{fill}\"{stroke}/>",
            num(x),
            num(y),
            num(w),
            num(h),
            num(radius)
        );
    }

    /// A straight line, with an arrow head at its end when `arrow`.
    pub fn line(&mut self, from: (f64, f64), to: (f64, f64), stroke: Stroke, arrow: bool) {
        let marker = if arrow {
            let id = format!("arrow-{}", &stroke.color.hex()[1..]);
            self.arrows.insert(id.clone(), stroke.color);
            format!(" marker-end=\"url(#{id})\"")
        } else {
            String::new()
        };
        let stroke_attrs = Self::stroke_attrs(Some(stroke));
        let _ = writeln!(
            self.body,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{stroke_attrs}{marker}/>",
            num(from.0),
            num(from.1),
            num(to.0),
            num(to.1)
        );
    }

    /// A text run whose baseline starts (or centres, or ends) at `(x, y)`.
    pub fn text(&mut self, x: f64, y: f64, text: &str, style: TextStyle) {
        let anchor = match style.anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        };
        let family = if style.mono {
            "DejaVu Sans Mono, Menlo, Consolas, monospace"
        } else {
            "DejaVu Sans, Helvetica, Arial, sans-serif"
        };
        let weight = if style.bold {
            " font-weight=\"bold\""
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            "<text x=\"{}\" y=\"{}\" font-family=\"{family}\" font-size=\"{}\" text-anchor=\"{anchor}\" fill=\"{}\"{weight}>{}</text>",
            num(x),
            num(y),
            num(style.size),
            style.color.hex(),
            escape(text)
        );
    }

    /// Opens a group (`<g>`) with a class, for styling and for finding
    /// the parts of a picture in its text.
    pub fn begin_group(&mut self, class: &str) {
        let _ = writeln!(self.body, "<g class=\"{}\">", escape(class));
    }

    /// Closes the group opened last.
    pub fn end_group(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// Draws a finished picture with its top-left corner at `(x, y)`, its
    /// anchors moved with it (a picture made elsewhere put into this one).
    pub fn embed(&mut self, drawing: &Drawing, x: f64, y: f64) {
        let _ = writeln!(
            self.body,
            "<g transform=\"translate({} {})\">",
            num(x),
            num(y)
        );
        self.body.push_str(&drawing.svg);
        self.body.push_str("</g>\n");
        for (name, (ax, ay)) in &drawing.anchors {
            self.anchors.insert(name.clone(), (ax + x, ay + y));
        }
    }

    /// Records a named point (not drawn).
    pub fn anchor(&mut self, name: impl Into<String>, x: f64, y: f64) {
        self.anchors.insert(name.into(), (x, y));
    }

    /// The finished document, `width` by `height` pixels on white.
    pub fn finish(self, width: f64, height: f64) -> Drawing {
        let mut out = String::with_capacity(self.body.len() + 1024);
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">",
            w = num(width),
            h = num(height)
        );
        if !self.hatches.is_empty() || !self.arrows.is_empty() {
            out.push_str("<defs>\n");
            for (id, (line, background)) in &self.hatches {
                let _ = writeln!(
                    out,
                    "<pattern id=\"{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"{}\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"{}\" stroke-width=\"3\"/></pattern>",
                    background.hex(),
                    line.hex()
                );
            }
            for (id, color) in &self.arrows {
                let _ = writeln!(
                    out,
                    "<marker id=\"{id}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{}\"/></marker>",
                    color.hex()
                );
            }
            out.push_str("</defs>\n");
        }
        let _ = writeln!(
            out,
            "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
            num(width),
            num(height)
        );
        out.push_str(&self.body);
        out.push_str("</svg>\n");
        Drawing {
            svg: out,
            size: (width, height),
            anchors: self.anchors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_without_trailing_zeros() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(-0.001), "0");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
