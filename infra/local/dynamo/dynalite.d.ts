/**
 * The little of dynalite (an untyped CommonJS package) that the local DynamoDB emulator uses.
 */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
  }

  /** Creates (does not start) the HTTP server that speaks the DynamoDB JSON protocol. */
  function dynalite(options?: DynaliteOptions): Server;

  export = dynalite;
}

declare module 'dynalite/db' {
  /** dynalite's storage handle; `db` is the LevelDB instance under every table. */
  export interface DynaliteStore {
    db: {
      status: string;
      open(): Promise<void>;
      close(callback: (error?: Error | null) => void): void;
    };
  }

  /** Builds the store; dynalite calls it once per server, with the server's options. */
  export function create(options: Record<string, unknown>): DynaliteStore;
}
