import type { X } from "./x";
const y: X = 1