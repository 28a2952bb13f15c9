//! The ranking's tuning constants (field weights, synonym and prefix factors, BM25 parameters)
//! and BM25's inverse document frequency.

/// Field weights for an exact word hit.
pub(super) const NAME: f32 = 4.0;
pub(super) const LABEL: f32 = 3.0;
pub(super) const DESCRIPTION: f32 = 1.5;
/// A query word that is a prefix of a tool word (`remind` → `reminders`).
pub(super) const PREFIX: f32 = 0.5;
/// A synonym hit, relative to the word itself.
pub(super) const SYNONYM: f32 = 0.6;
/// Further alternatives of one concept that a tool also matches, relative to the best one.
pub(super) const EXTRA: f32 = 0.25;
/// What a concept's best alternative counts for: `KEEP * best + EXTRA * sum`, written so (rather
/// than `best + EXTRA * (sum - best)`) because every step only grows with each hit, in floating
/// point too, so a bound computed the same way from larger weights is never below a score.
pub(super) const KEEP: f32 = 1.0 - EXTRA;
/// The first query word, usually the action ("refund a payment", "list open pull requests").
pub(super) const LEAD: f32 = 1.25;
/// Consecutive query words found consecutively in a tool's text, per pair.
pub(super) const PHRASE: f32 = 1.0;
/// Share of the tool's name words the query hits: `voice_call` over `voice_call_transcript`
/// for "call a phone number". The score is scaled by up to 1 + NAME_COVER.
pub(super) const NAME_COVER: f32 = 0.5;
/// A stopword that is a word of the tool's name or label (`turn on` vs `turn off`).
pub(super) const MINOR: f32 = 0.3;
/// BM25 length normalisation of descriptions: a word in a one-line description says more than
/// the same word in a long list of actions.
pub(super) const K1: f32 = 1.2;
pub(super) const B: f32 = 0.5;
/// Query-wide name boosts (`web_search` for the query "web search" or "webSearch").
pub(super) const NAME_PREFIX_BOOST: f32 = 6.0;
/// Prefix matches need this many characters, or `not` (from "notes") would match `notion`.
pub(super) const MIN_PREFIX: usize = 4;

/// BM25's inverse document frequency: rare words count more, a word in every tool near zero.
pub(super) fn idf(docs: usize, df: usize) -> f32 {
  (1.0 + (docs as f32 - df as f32 + 0.5) / (df as f32 + 0.5)).ln()
}
