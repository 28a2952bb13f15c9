//! Suspended cells: parked live VMs keyed by single-use, unguessable `runId` tokens.
//!
//! The store only indexes; each cell owns its VM and its expiry. A token stays mapped while
//! its `wait` leg runs (so a second `wait` is told "already being resumed") and is replaced by
//! a fresh one if the cell suspends again.

use dashmap::DashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Suspended cells per process by default (OpenClaw's own cap, docs/executor-contract.md).
pub const DEFAULT_MAX_SUSPENDED: usize = 64;

/// Parked cells by token (`T` is `cell.rs`'s `Cell`).
pub struct Store<T> {
  cells: DashMap<String, Arc<T>>,
  count: AtomicUsize,
  cap: AtomicUsize,
}

/// A fresh token: 128 random bits; `None` when the OS gives no random bytes (a guessable token
/// would let another session resume the cell, so there is none).
pub fn new_token() -> Option<String> {
  let mut bytes = [0u8; 16];
  getrandom::fill(&mut bytes).ok()?;
  let mut token = String::with_capacity(3 + 32);
  token.push_str("cm_");
  for b in bytes {
    token.push_str(&format!("{b:02x}"));
  }
  Some(token)
}

impl<T> Default for Store<T> {
  fn default() -> Self {
    Store::new()
  }
}

impl<T> Store<T> {
  pub fn new() -> Self {
    Store {
      cells: DashMap::new(),
      count: AtomicUsize::new(0),
      cap: AtomicUsize::new(DEFAULT_MAX_SUSPENDED),
    }
  }

  pub fn set_cap(&self, cap: usize) {
    self.cap.store(cap.max(1), Ordering::Relaxed);
  }

  pub fn len(&self) -> usize {
    self.count.load(Ordering::Acquire)
  }

  pub fn is_empty(&self) -> bool {
    self.len() == 0
  }

  pub fn get(&self, token: &str) -> Option<Arc<T>> {
    self.cells.get(token).map(|entry| entry.value().clone())
  }

  /// Adds a suspended cell; false when the process is at its cap.
  pub fn insert(&self, token: String, cell: Arc<T>) -> bool {
    let cap = self.cap.load(Ordering::Relaxed);
    let admitted = self
      .count
      .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
        (n < cap).then_some(n + 1)
      })
      .is_ok();
    if admitted {
      self.cells.insert(token, cell);
    }
    admitted
  }

  /// Swaps a resumed cell's token for a new one (the cell keeps its slot).
  pub fn replace(&self, old: &str, new: String, cell: Arc<T>) -> bool {
    if self.cells.remove(old).is_none() {
      return self.insert(new, cell);
    }
    self.cells.insert(new, cell);
    true
  }

  pub fn remove(&self, token: &str) {
    if self.cells.remove(token).is_some() {
      self.count.fetch_sub(1, Ordering::AcqRel);
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn tokens_are_unguessable_and_unique() {
    let a = new_token().unwrap();
    let b = new_token().unwrap();
    assert_ne!(a, b);
    assert_eq!(a.len(), 35);
    assert!(a.starts_with("cm_"));
  }
}
