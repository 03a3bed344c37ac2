// Plain JSON for keyv's envelope: its default serializer is several times slower, and runs are saved every step.
import type { KeyvOptions } from 'keyv';

export const jsonSerializer = {
  serialize: (data: unknown) => JSON.stringify(data),
  deserialize: (text: string) => JSON.parse(text),
} as Pick<KeyvOptions, 'serialize' | 'deserialize'>;
