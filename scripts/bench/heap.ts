/**
 * The V8 heap of a server the bench started, read over the inspector protocol
 * (https://chromedevtools.github.io/devtools-protocol/v8/): the server runs with
 * `--inspect=127.0.0.1:<port>`, so the service needs no switch of its own for it.
 * `collectGarbage` is a full collection, after which what is still used is what
 * the service holds: the figure a leak would raise.
 */
export interface HeapFigures {
  /** Bytes of live objects and garbage not yet collected, in MB. */
  usedMb: number;
  /** Bytes V8 has reserved for the heap, in MB. */
  totalMb: number;
}

const MB = 1024 * 1024;

export class HeapInspector {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, (result: unknown) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (message) => {
      const answer = JSON.parse(String(message.data)) as { id?: number; result?: unknown };
      if (answer.id !== undefined) this.#waiting.get(answer.id)?.(answer.result);
    });
  }

  /** Connects to the inspector listening on `port`. */
  static async connect(port: number): Promise<HeapInspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    if (!target) throw new Error(`no inspector target on port ${port}`);
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    const inspector = new HeapInspector(socket);
    await inspector.#call('HeapProfiler.enable');
    return inspector;
  }

  async usage(): Promise<HeapFigures> {
    const { usedSize, totalSize } = (await this.#call('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    return { usedMb: Math.round(usedSize / MB), totalMb: Math.round(totalSize / MB) };
  }

  /** A full collection, then the heap. */
  async afterCollection(): Promise<HeapFigures> {
    await this.#call('HeapProfiler.collectGarbage');
    return this.usage();
  }

  close(): void {
    this.#socket.close();
  }

  #call(method: string, params: object = {}): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, (result) => {
        this.#waiting.delete(id);
        resolve(result);
      });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }
}
