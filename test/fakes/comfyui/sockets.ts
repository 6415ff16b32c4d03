// The /ws endpoint: one WebSocket per client id ("sid"), as server.py keeps them. Messages go to one
// sid or, with none, to every registered socket; JSON ones are {type, data}, binary ones a ">I"
// event type then the payload. Every send is recorded, delivered or not.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/** server.py's BinaryEventTypes. */
export const PREVIEW_IMAGE = 1;
export const PREVIEW_IMAGE_WITH_METADATA = 4;

export interface SentMessage {
  /** The sid it was addressed to; null for a broadcast. */
  sid: string | null;
  /** The JSON message's type, or "binary" for a binary frame. */
  type: string;
  /** The JSON message's data, or { event } for a binary frame. */
  data: any;
}

/**
 * comfy_api.feature_flags.get_server_features(): answered to a client that sends its own flags first, and on GET
 * /features.
 */
export const serverFeatures = (maxUploadBytes: number) => ({
  supports_preview_metadata: true,
  max_upload_size: maxUploadBytes,
});

export class Sockets {
  readonly sent: SentMessage[] = [];
  /** Emits "message" with each SentMessage. */
  readonly events = new EventEmitter();
  private readonly bySid = new Map<string, WebSocket>();
  private readonly open = new Set<WebSocket>();
  private readonly flags = new Map<string, Record<string, unknown>>();
  private readonly wss = new WebSocketServer({ noServer: true });

  /**
   * `onConnect` sends what a new socket gets first (status, and the running node when it is that
   * job's client); `features` is what the server answers a client's feature_flags with.
   */
  constructor(
    private readonly onConnect: (sid: string) => void,
    private readonly features: Record<string, unknown>,
  ) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, clientId: string): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connect(ws, clientId));
  }

  private connect(ws: WebSocket, clientId: string): void {
    const sid = clientId || randomUUID().replaceAll('-', '');
    this.bySid.set(sid, ws);
    this.flags.set(sid, {});
    this.open.add(ws);
    let first = true;
    ws.on('message', (raw, isBinary) => {
      if (isBinary) return;
      try {
        const message = JSON.parse(String(raw));
        if (first && message?.type === 'feature_flags') {
          this.flags.set(sid, message.data ?? {});
          this.send('feature_flags', this.features, sid);
        }
        first = false;
      } catch {
        // ComfyUI logs text that is not JSON and goes on.
      }
    });
    ws.on('close', () => {
      this.open.delete(ws);
      // As server.py's `finally: self.sockets.pop(sid)`: an old socket closing after a new one took
      // its client id unregisters the new one too.
      this.bySid.delete(sid);
      this.flags.delete(sid);
    });
    this.onConnect(sid);
  }

  /** Whether the client of `sid` said it takes previews with metadata. */
  wantsPreviewMetadata(sid: string | null): boolean {
    return sid !== null && this.flags.get(sid)?.supports_preview_metadata === true;
  }

  send(type: string, data: unknown, sid: string | null): void {
    this.deliver({ sid, type, data }, JSON.stringify({ type, data }));
  }

  sendBytes(event: number, payload: Buffer, sid: string | null): void {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(event);
    this.deliver({ sid, type: 'binary', data: { event } }, Buffer.concat([header, payload]));
  }

  private deliver(message: SentMessage, frame: string | Buffer): void {
    this.sent.push(message);
    const targets =
      message.sid === null ? [...this.bySid.values()] : [this.bySid.get(message.sid)].filter((ws) => ws !== undefined);
    // A socket that is closing drops the frame, as ComfyUI logs a send error and goes on.
    for (const ws of targets) if (ws.readyState === ws.OPEN) ws.send(frame);
    this.events.emit('message', message);
  }

  /** Open sockets, registered or not. */
  count(): number {
    return this.open.size;
  }

  /** Cuts every connection at once: no close frame, as a network that drops them. */
  terminateAll(): void {
    for (const ws of this.open) ws.terminate();
  }

  close(): void {
    this.terminateAll();
    this.wss.close();
  }
}
