//! Colours that survive colour blindness (Okabe and Ito's palette) and the
//! meaning each picture gives them.
//!
//! Every picture draws a meaning with the same fill: a user who has learnt
//! that blue is "needed" in one picture reads it the same way in the next.

/// An RGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Color(pub u8, pub u8, pub u8);

impl Color {
    /// Text and outlines.
    pub const INK: Color = Color(0x22, 0x22, 0x22);
    /// Light outlines and grid lines.
    pub const RULE: Color = Color(0xbb, 0xbb, 0xbb);
    /// Cells that play no part (untouched elements).
    pub const BACKGROUND: Color = Color(0xf0, 0xf0, 0xf0);
    /// White.
    pub const WHITE: Color = Color(0xff, 0xff, 0xff);
    /// Okabe-Ito blue.
    pub const BLUE: Color = Color(0x00, 0x72, 0xb2);
    /// Okabe-Ito orange.
    pub const ORANGE: Color = Color(0xe6, 0x9f, 0x00);
    /// Okabe-Ito sky blue.
    pub const SKY_BLUE: Color = Color(0x56, 0xb4, 0xe9);
    /// Okabe-Ito bluish green.
    pub const GREEN: Color = Color(0x00, 0x9e, 0x73);
    /// Okabe-Ito yellow.
    pub const YELLOW: Color = Color(0xf0, 0xe4, 0x42);
    /// Okabe-Ito vermillion.
    pub const VERMILLION: Color = Color(0xd5, 0x5e, 0x00);
    /// Okabe-Ito reddish purple.
    pub const PURPLE: Color = Color(0xcc, 0x79, 0xa7);
    /// Mid grey (padding hatches).
    pub const GREY: Color = Color(0x99, 0x99, 0x99);

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// How an area is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fill {
    /// Not filled.
    None,
    /// One colour.
    Solid(Color),
    /// Diagonal lines over a background (padding, may-read areas).
    Hatch {
        /// The lines' colour.
        line: Color,
        /// The colour between the lines.
        background: Color,
    },
}

/// What a cell or mark means; each has one fill in every picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Needed and computed (TE), read (HLO), inside the range (TC).
    Needed,
    /// Computed but never read: the over-computation a bound costs.
    Wasted,
    /// Needed but not computed: a bound that is too small (never expected).
    Missing,
    /// The element a picture is about (the chosen output element).
    Selected,
    /// May be read, depending on runtime values.
    MayRead,
    /// Padding added by a layout: no logical element lives there.
    Padding,
    /// A leaf (loop) variable in an iteration-variable graph.
    Leaf,
    /// An ordinary node or element that plays no part.
    Plain,
}

impl Role {
    /// The fill drawn for this role.
    pub const fn fill(self) -> Fill {
        match self {
            Role::Needed => Fill::Solid(Color::BLUE),
            Role::Wasted => Fill::Solid(Color::ORANGE),
            Role::Missing => Fill::Solid(Color::VERMILLION),
            Role::Selected => Fill::Solid(Color::VERMILLION),
            Role::MayRead => Fill::Hatch {
                line: Color::SKY_BLUE,
                background: Color::WHITE,
            },
            Role::Padding => Fill::Hatch {
                line: Color::GREY,
                background: Color::WHITE,
            },
            Role::Leaf => Fill::Solid(Color::GREEN),
            Role::Plain => Fill::Solid(Color::BACKGROUND),
        }
    }

    /// The colour of text drawn on a cell of this role.
    pub const fn ink(self) -> Color {
        match self {
            Role::Needed | Role::Missing | Role::Selected | Role::Leaf => Color::WHITE,
            _ => Color::INK,
        }
    }

    /// The meaning, as a legend says it unless a picture says it its way.
    pub const fn meaning(self) -> &'static str {
        match self {
            Role::Needed => "needed",
            Role::Wasted => "computed, never read",
            Role::Missing => "needed, not computed",
            Role::Selected => "chosen element",
            Role::MayRead => "may be read (runtime values)",
            Role::Padding => "padding",
            Role::Leaf => "leaf (loop) variable",
            Role::Plain => "not touched",
        }
    }
}
