//! Pictures of what rangefinder computes, as SVG and HTML.
//!
//! The building blocks are small [`Panel`]s that know their size and draw
//! themselves: tensors as [`Grid`]s of elements, [`Graph`]s laid out in
//! layers, ranges on a [`NumberLine`], [`Legend`]s and [`Text`], put
//! together in [`Column`]s and [`Row`]s and [`render`]ed to a [`Drawing`].
//! Every meaning has one fill in every picture ([`Role`]), from a palette
//! that survives colour blindness.
//!
//! ```
//! use picture::{render, Cell, Column, Grid, Legend, LegendEntry, Role};
//!
//! // A 4 x 4 tensor whose first row is needed.
//! let grid = Grid::new("B", 4, 4, &|r, _| Cell::of(if r == 0 { Role::Needed } else { Role::Plain }))
//!     .title("B")
//!     .axes("bi", "bj");
//! let mut page = Column::new(10.0);
//! page.push(grid);
//! page.push(Legend::new(vec![LegendEntry::role(Role::Needed)]));
//! let drawing = render(&page);
//! assert!(drawing.svg.starts_with("<svg"));
//! assert!(drawing.anchor("B[0,3]").is_some());
//! ```

mod graph;
mod grid;
mod hlo_map;
mod html;
mod iter_var_graph;
mod layout_buffer;
mod number_line;
mod palette;
mod panel;
mod stage_graph;
mod svg;
mod tc_ranges;
mod te_page;
mod te_regions;

pub use graph::{Edge, Graph, Node};
pub use grid::{
    tensor_panel, tensor_panel_rows_apart, Cell, Grid, MAX_CELLS, MAX_CLASSIFIED, MAX_SLICES,
    MAX_SLICE_CELLS,
};
pub use hlo_map::{
    hlo_map_picture, hlo_scene, map_picture, map_scene, middle_element, parse_at, DrawnMap,
    MapPictureError, MapScene, ReadTensor, ENUMERATION_BUDGET,
};
pub use html::Page;
pub use iter_var_graph::{
    iter_var_graph, iter_var_legend, iter_var_picture, INNER_FILL, RELATION_FILL, ROOT_FILL,
};
pub use layout_buffer::{collision_picture, layout_picture};
pub use number_line::{Bar, NumberLine};
pub use palette::{Color, Fill, Role};
pub use panel::{render, Column, Legend, LegendEntry, Panel, Row, Spacer, Text, MARGIN};
pub use stage_graph::{
    stage_graph, stage_graph_legend, stage_graph_picture, COMPUTED_FILL, INLINED_FILL, INPUT_FILL,
    OUTPUT_FILL,
};
pub use svg::{escape, num, Anchor, Drawing, Stroke, Svg, TextStyle};
pub use tc_ranges::tc_picture;
pub use te_page::{te_page, te_pictures, work_picture};
pub use te_regions::{region_drawings, region_panels, te_regions_svg};
