//! What a prepared cell is: its language and the program handed to the VM.

use super::positions::PositionMap;

/// The language a cell is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
  JavaScript,
  TypeScript,
}

impl Language {
  /// The name the API uses for it.
  pub fn as_str(self) -> &'static str {
    match self {
      Language::JavaScript => "javascript",
      Language::TypeScript => "typescript",
    }
  }

  /// The file name errors and stack traces show for a cell in this language.
  pub fn filename(self) -> &'static str {
    match self {
      Language::JavaScript => "cell.js",
      Language::TypeScript => "cell.ts",
    }
  }
}

/// A cell ready for the VM.
#[derive(Debug)]
pub struct Program {
  /// The wrapped JavaScript the VM compiles.
  pub code: String,
  pub language: Language,
  pub positions: PositionMap,
}
