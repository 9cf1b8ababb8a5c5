import type { Redis } from 'ioredis';
import type { KeyTable, ReplaceResult, StoredKey } from './key-table.ts';

// Layout (the store's prefix, `polygate:`):
//   keys:table    hash id -> the key as JSON (StoredKey)
//   keys:version  a counter every write increments in the same script, which instances poll

const createScript = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
return 1
`;

const replaceScript = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 'missing' end
if tonumber(cjson.decode(cur).rev) ~= tonumber(ARGV[3]) then return 'conflict' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 'ok'
`;

const deleteScript = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
return 1
`;

type Scripted = Redis & {
  pgKeyCreate(table: string, version: string, id: string, json: string): Promise<number>;
  pgKeyReplace(table: string, version: string, id: string, json: string, rev: number): Promise<ReplaceResult>;
  pgKeyDelete(table: string, version: string, id: string): Promise<number>;
};

/** The `redis` driver's table: every instance on the Redis shares it. */
export class RedisKeyTable implements KeyTable {
  readonly #r: Scripted;
  readonly #table: string;
  readonly #version: string;

  constructor(client: Redis, prefix: string) {
    this.#table = `${prefix}keys:table`;
    this.#version = `${prefix}keys:version`;
    client.defineCommand('pgKeyCreate', { numberOfKeys: 2, lua: createScript });
    client.defineCommand('pgKeyReplace', { numberOfKeys: 2, lua: replaceScript });
    client.defineCommand('pgKeyDelete', { numberOfKeys: 2, lua: deleteScript });
    this.#r = client as Scripted;
  }

  async version(): Promise<string> {
    return (await this.#r.get(this.#version)) ?? '0';
  }
  async all(): Promise<StoredKey[]> {
    return Object.values(await this.#r.hgetall(this.#table)).map((j) => JSON.parse(j) as StoredKey);
  }
  async get(id: string): Promise<StoredKey | undefined> {
    const j = await this.#r.hget(this.#table, id);
    return j === null ? undefined : (JSON.parse(j) as StoredKey);
  }
  async create(key: StoredKey): Promise<boolean> {
    return (await this.#r.pgKeyCreate(this.#table, this.#version, key.id, JSON.stringify(key))) === 1;
  }
  async replace(key: StoredKey, expectRev: number): Promise<ReplaceResult> {
    return this.#r.pgKeyReplace(this.#table, this.#version, key.id, JSON.stringify(key), expectRev);
  }
  async delete(id: string): Promise<boolean> {
    return (await this.#r.pgKeyDelete(this.#table, this.#version, id)) === 1;
  }
  /** The client is the store's: it closes with the store. */
  async close(): Promise<void> {}
}
