//! Shapes over the grid against a brute force over every area.

use super::*;
