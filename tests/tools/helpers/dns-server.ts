// A small authoritative DNS server on a local UDP port, answering from an in-memory zone.
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';

export interface ZoneRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string[];
  NS?: string[];
  MX?: { priority: number; exchange: string }[];
  TXT?: string[][];
  SRV?: { priority: number; weight: number; port: number; target: string }[];
}

const TYPE_CODES = { A: 1, NS: 2, CNAME: 5, MX: 15, TXT: 16, AAAA: 28, SRV: 33 } as const;
type RecordType = keyof typeof TYPE_CODES;

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0]),
  ]);
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}

function ipv6Bytes(address: string): Buffer {
  if (!isIPv6(address)) throw new Error(`not IPv6: ${address}`);
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = [
    ...headGroups,
    ...Array(8 - headGroups.length - tailGroups.length).fill('0'),
    ...tailGroups,
  ];
  return Buffer.concat(groups.map((group) => u16(Number.parseInt(group, 16))));
}

function recordData(type: RecordType, value: unknown): Buffer {
  switch (type) {
    case 'A':
      return Buffer.from((value as string).split('.').map(Number));
    case 'AAAA':
      return ipv6Bytes(value as string);
    case 'CNAME':
    case 'NS':
      return encodeName(value as string);
    case 'MX': {
      const mx = value as { priority: number; exchange: string };
      return Buffer.concat([u16(mx.priority), encodeName(mx.exchange)]);
    }
    case 'TXT':
      return Buffer.concat(
        (value as string[]).map((chunk) => Buffer.concat([Buffer.from([chunk.length]), Buffer.from(chunk)])),
      );
    case 'SRV': {
      const srv = value as { priority: number; weight: number; port: number; target: string };
      return Buffer.concat([u16(srv.priority), u16(srv.weight), u16(srv.port), encodeName(srv.target)]);
    }
  }
}

function readQuestion(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  while (message[offset] !== 0) {
    const length = message[offset] ?? 0;
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += 1 + length;
  }
  offset += 1;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 };
}

export interface DnsTestServer {
  /** "127.0.0.1:PORT", ready for dns_servers. */
  address: string;
  queries: { name: string; type: number }[];
  close(): Promise<void>;
}

export async function startDnsServer(zone: Record<string, ZoneRecords>): Promise<DnsTestServer> {
  const socket: Socket = createSocket('udp4');
  const queries: { name: string; type: number }[] = [];
  socket.on('message', (message, remote) => {
    const question = readQuestion(message);
    queries.push({ name: question.name, type: question.type });
    const records = zone[question.name];
    const type = (Object.keys(TYPE_CODES) as RecordType[]).find((key) => TYPE_CODES[key] === question.type);
    const values: unknown[] = records && type ? ((records[type] as unknown[] | undefined) ?? []) : [];
    const rcode = records ? 0 : 3;
    const answers = values.map((value) => {
      const data = recordData(type as RecordType, value);
      const ttl = Buffer.alloc(4);
      ttl.writeUInt32BE(300);
      // 0xc00c points back at the question's name.
      return Buffer.concat([u16(0xc00c), u16(question.type), u16(1), ttl, u16(data.length), data]);
    });
    const header = Buffer.concat([
      message.subarray(0, 2),
      u16(0x8400 | 0x0100 | 0x0080 | rcode),
      u16(1),
      u16(answers.length),
      u16(0),
      u16(0),
    ]);
    socket.send(
      Buffer.concat([header, message.subarray(12, question.end), ...answers]),
      remote.port,
      remote.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
