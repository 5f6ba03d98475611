/**
 * The subset of ASN.1 unaligned PER (ITU-T X.691) that ETSI's ITS messages use: constrained
 * integers (with or without an extension marker), enumerations, choices, sequence preambles,
 * fixed-size bit strings and size-constrained SEQUENCE OF lengths. Values outside their
 * constraint throw: an encoder that clamps silently would hide a unit error in the caller.
 */

export class UperError extends Error {
  override name = 'UperError';
}

/** Bits for a constrained whole number of `range` values (X.691 11.5.6): 0 for a single value. */
export const bitsFor = (range: number) => (range <= 1 ? 0 : Math.ceil(Math.log2(range)));

export class BitWriter {
  private bytes: number[] = [];
  private bitLength = 0;

  /** Appends the `count` low bits of `value` (count <= 48), most significant first. */
  bits(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i--) {
      const bit = Math.floor(value / 2 ** i) % 2;
      const byte = this.bitLength >> 3;
      if (byte === this.bytes.length) this.bytes.push(0);
      if (bit) this.bytes[byte] |= 0x80 >> (this.bitLength & 7);
      this.bitLength++;
    }
  }

  bool(value: boolean): void {
    this.bits(value ? 1 : 0, 1);
  }

  /** INTEGER (lb..ub) or (lb..ub, ...): a root value, with the extension bit 0 when extensible. */
  integer(what: string, value: number, lb: number, ub: number, extensible = false): void {
    if (!Number.isInteger(value) || value < lb || value > ub) throw new UperError(`${what} = ${value} is outside ${lb}..${ub}`);
    if (extensible) this.bool(false);
    this.bits(value - lb, bitsFor(ub - lb + 1));
  }

  /** ENUMERATED with `count` root values numbered 0..count-1 (as every ITS enumeration here is). */
  enumerated(what: string, index: number, count: number, extensible = false): void {
    this.integer(what, index, 0, count - 1, extensible);
  }

  /** The octets, the last one padded with zero bits; an empty encoding is one zero octet (X.691 11.1). */
  finish(): Uint8Array {
    return Uint8Array.from(this.bytes.length ? this.bytes : [0]);
  }
}

export class BitReader {
  private position = 0;

  constructor(private readonly data: Uint8Array) {}

  bits(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) {
      const byte = this.position >> 3;
      if (byte >= this.data.length) throw new UperError(`truncated: wanted bit ${this.position} of ${this.data.length * 8}`);
      value = value * 2 + ((this.data[byte] >> (7 - (this.position & 7))) & 1);
      this.position++;
    }
    return value;
  }

  bool(): boolean {
    return this.bits(1) === 1;
  }

  integer(what: string, lb: number, ub: number, extensible = false): number {
    if (extensible && this.bool()) throw new UperError(`${what}: a value outside the root (extension) is not supported`);
    const value = lb + this.bits(bitsFor(ub - lb + 1));
    if (value > ub) throw new UperError(`${what} = ${value} is outside ${lb}..${ub}`);
    return value;
  }

  enumerated(what: string, count: number, extensible = false): number {
    if (extensible && this.bool()) throw new UperError(`${what}: an extension value is not supported`);
    const index = this.bits(bitsFor(count));
    if (index >= count) throw new UperError(`${what} = ${index} is outside 0..${count - 1}`);
    return index;
  }

  /** A SEQUENCE's or CHOICE's extension bit: extensions present are beyond this codec. */
  noExtensions(what: string): void {
    if (this.bool()) throw new UperError(`${what}: extension additions are not supported`);
  }

  get bitPosition(): number {
    return this.position;
  }
}
