// TextEncoder and TextDecoder (UTF-8 only), which the OpenClaw guest API lists and QuickJS
// lacks; upstream's QuickJS-WASI executor gets them from its `encoding` extension. Installed
// before the controller as non-enumerable globals, like the built-ins.
(function () {
  'use strict';
  const replacement = 0xfffd;

  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }
    encode(input = '') {
      const s = String(input);
      const out = new Uint8Array(s.length * 3);
      return out.slice(0, write(s, out).written);
    }
    encodeInto(input, dest) {
      if (!(dest instanceof Uint8Array)) throw new TypeError('encodeInto: destination must be a Uint8Array');
      return write(String(input), dest);
    }
  }

  function write(s, out) {
    let read = 0;
    let written = 0;
    const n = s.length;
    while (read < n) {
      let c = s.charCodeAt(read);
      let units = 1;
      if (c >= 0xd800 && c <= 0xdbff && read + 1 < n) {
        const d = s.charCodeAt(read + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          units = 2;
        } else c = replacement;
      } else if (c >= 0xd800 && c <= 0xdfff) c = replacement;
      const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      if (written + size > out.length) break;
      if (size === 1) out[written++] = c;
      else if (size === 2) {
        out[written++] = 0xc0 | (c >> 6);
        out[written++] = 0x80 | (c & 63);
      } else if (size === 3) {
        out[written++] = 0xe0 | (c >> 12);
        out[written++] = 0x80 | ((c >> 6) & 63);
        out[written++] = 0x80 | (c & 63);
      } else {
        out[written++] = 0xf0 | (c >> 18);
        out[written++] = 0x80 | ((c >> 12) & 63);
        out[written++] = 0x80 | ((c >> 6) & 63);
        out[written++] = 0x80 | (c & 63);
      }
      read += units;
    }
    return { read, written };
  }

  const labels = ['utf-8', 'utf8', 'unicode-1-1-utf-8'];

  class TextDecoder {
    #fatal;
    #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      if (!labels.includes(String(label).trim().toLowerCase())) {
        throw new RangeError(`TextDecoder: the encoding "${label}" is not supported`);
      }
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() {
      return 'utf-8';
    }
    get fatal() {
      return this.#fatal;
    }
    get ignoreBOM() {
      return this.#ignoreBOM;
    }
    decode(input) {
      if (input === undefined) return '';
      let bytes;
      if (input instanceof ArrayBuffer) bytes = new Uint8Array(input);
      else if (ArrayBuffer.isView(input)) bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
      else throw new TypeError('TextDecoder.decode: input must be an ArrayBuffer or a view of one');
      let i = 0;
      const n = bytes.length;
      if (!this.#ignoreBOM && n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
      let out = '';
      let chunk = [];
      const emit = (c) => {
        if (c >= 0x10000) {
          c -= 0x10000;
          chunk.push(0xd800 + (c >> 10), 0xdc00 + (c & 1023));
        } else chunk.push(c);
        if (chunk.length >= 4096) {
          out += String.fromCharCode.apply(null, chunk);
          chunk = [];
        }
      };
      const bad = () => {
        if (this.#fatal) throw new TypeError('TextDecoder.decode: the data is not valid utf-8');
        emit(replacement);
      };
      // The WHATWG UTF-8 decoder: one U+FFFD per maximal invalid subpart, a byte that cannot
      // continue a sequence is read again as the start of the next.
      let needed = 0;
      let seen = 0;
      let code = 0;
      let lower = 0x80;
      let upper = 0xbf;
      while (i < n) {
        const b = bytes[i];
        if (needed === 0) {
          i++;
          if (b <= 0x7f) emit(b);
          else if (b >= 0xc2 && b <= 0xdf) (needed = 1), (code = b & 0x1f);
          else if (b >= 0xe0 && b <= 0xef) {
            if (b === 0xe0) lower = 0xa0;
            if (b === 0xed) upper = 0x9f;
            needed = 2;
            code = b & 0xf;
          } else if (b >= 0xf0 && b <= 0xf4) {
            if (b === 0xf0) lower = 0x90;
            if (b === 0xf4) upper = 0x8f;
            needed = 3;
            code = b & 0x7;
          } else bad();
          continue;
        }
        if (b < lower || b > upper) {
          needed = seen = code = 0;
          lower = 0x80;
          upper = 0xbf;
          bad();
          continue;
        }
        i++;
        lower = 0x80;
        upper = 0xbf;
        code = (code << 6) | (b & 0x3f);
        if (++seen === needed) {
          emit(code);
          needed = seen = code = 0;
        }
      }
      if (needed !== 0) bad();
      return out + String.fromCharCode.apply(null, chunk);
    }
  }

  for (const [name, value] of [['TextEncoder', TextEncoder], ['TextDecoder', TextDecoder]]) {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }
})();
