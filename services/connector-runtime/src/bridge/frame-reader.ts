import { BridgeProtocolError, decodeLineText, decodeUtf8, maxFrameBytes, type RawFrame } from './wire';

/**
 * Frames out of a byte stream cut anywhere (a socket's chunks): bytes are held until their LF arrives. A line
 * that reaches the frame bound without an LF fails at once, without waiting for the rest, so a peer cannot make
 * the reader hold more than one bound's worth of bytes. After a failure the connection is to be closed: every
 * later push fails with the same error.
 *
 * A chunk's whole lines are decoded from UTF-8 in one call (an LF never falls inside a UTF-8 sequence, so the
 * text up to a chunk's last LF is whole characters) and split as text: one decode per read, not one per frame.
 */
export class FrameReader {
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private failure: BridgeProtocolError | undefined;

  constructor(private readonly maxBytes = maxFrameBytes) {}

  /** Bytes of an unfinished line held so far. */
  get bufferedBytes(): number {
    return this.heldBytes;
  }

  /** The frames this chunk completes, in order. Throws BridgeProtocolError on an oversized or malformed line. */
  push(chunk: Uint8Array): RawFrame[] {
    if (this.failure) throw this.failure;
    try {
      const lastNewline = chunk.lastIndexOf(0x0a);
      if (lastNewline < 0) {
        this.checkUnfinished(chunk.length);
        this.hold(chunk);
        return [];
      }
      // Bounds are checked in bytes, line by line, only when the bytes at hand could hold a line past the bound.
      if (this.heldBytes + lastNewline + 1 > this.maxBytes) this.checkLines(chunk, lastNewline);
      const text = decodeUtf8(this.takeLines(chunk.subarray(0, lastNewline)));
      const tail = chunk.subarray(lastNewline + 1);
      if (tail.length > 0) {
        this.checkUnfinished(tail.length);
        this.hold(tail);
      }
      const frames: RawFrame[] = [];
      let start = 0;
      for (;;) {
        const end = text.indexOf('\n', start);
        frames.push(decodeLineText(end < 0 ? text.slice(start) : text.slice(start, end)));
        if (end < 0) return frames;
        start = end + 1;
      }
    } catch (error) {
      this.failure = error instanceof BridgeProtocolError ? error : new BridgeProtocolError('malformed', String(error));
      this.held = [];
      this.heldBytes = 0;
      throw this.failure;
    }
  }

  /** An unfinished line whose LF is still to come that already needs the whole bound cannot be a frame. */
  private checkUnfinished(moreBytes: number): void {
    if (this.heldBytes + moreBytes + 1 > this.maxBytes)
      throw new BridgeProtocolError('frame_too_large', `frame exceeds ${this.maxBytes} bytes`);
  }

  /** Each line up to `lastNewline` (the held bytes being the first line's start) within the bound. */
  private checkLines(chunk: Uint8Array, lastNewline: number): void {
    let lineStart = -this.heldBytes;
    for (let newline = chunk.indexOf(0x0a); newline >= 0 && newline <= lastNewline; newline = chunk.indexOf(0x0a, newline + 1)) {
      if (newline - lineStart + 1 > this.maxBytes) throw new BridgeProtocolError('frame_too_large', `frame exceeds ${this.maxBytes} bytes`);
      lineStart = newline + 1;
    }
  }

  private hold(part: Uint8Array): void {
    // A copy: the caller may reuse its chunk's memory.
    this.held.push(Uint8Array.from(part));
    this.heldBytes += part.length;
  }

  private takeLines(tail: Uint8Array): Uint8Array {
    if (this.heldBytes === 0) return tail;
    const lines = new Uint8Array(this.heldBytes + tail.length);
    let offset = 0;
    for (const part of this.held) {
      lines.set(part, offset);
      offset += part.length;
    }
    lines.set(tail, offset);
    this.held = [];
    this.heldBytes = 0;
    return lines;
  }
}
