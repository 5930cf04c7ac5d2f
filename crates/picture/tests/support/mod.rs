//! Rendering pictures to pixels for tests: the SVG text is drawn by
//! `resvg` (no fonts: text is not drawn, cells and marks are), and colours
//! are read at the points the picture recorded as anchors.

#![allow(dead_code)]

use picture::{Color, Drawing};

/// A rendered picture.
pub struct Pixels {
    pixmap: resvg::tiny_skia::Pixmap,
}

/// Renders `drawing` at its own size.
pub fn rasterize(drawing: &Drawing) -> Pixels {
    let tree = resvg::usvg::Tree::from_str(&drawing.svg, &resvg::usvg::Options::default())
        .expect("the picture is valid SVG");
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a non-empty picture");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    Pixels { pixmap }
}

impl Pixels {
    /// The colour at `(x, y)`.
    pub fn at(&self, x: f64, y: f64) -> Color {
        let p = self
            .pixmap
            .pixel(x.round() as u32, y.round() as u32)
            .expect("the point is inside the picture")
            .demultiply();
        Color(p.red(), p.green(), p.blue())
    }

    /// The colour at the anchor `name` of `drawing`.
    pub fn at_anchor(&self, drawing: &Drawing, name: &str) -> Color {
        let (x, y) = drawing
            .anchor(name)
            .unwrap_or_else(|| panic!("the picture has an anchor {name}"));
        self.at(x, y)
    }
}
