/**
 * Nest's microservice wire format, which `ServerNats` reads and writes. The
 * bus clients speak it directly so any Nest service answers them unchanged.
 */
export interface RequestPacket {
  pattern: string;
  data: unknown;
  id: string;
}

export interface ReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

let counter = 0;
const prefix = Math.random().toString(36).slice(2, 8);

/** A request id unique within this process (Nest only needs it to pair replies). */
export function nextPacketId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}${counter.toString(36)}`;
}
