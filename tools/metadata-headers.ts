// Request headers that only serve to read cloud instance metadata: no HTTP request opsbot makes may carry them.

/** Lower-case header names, with the cloud endpoint that requires each. */
const METADATA_HEADERS: readonly { name: string; cloud: string }[] = [
  { name: 'metadata-flavor', cloud: 'GCP metadata' },
  { name: 'x-google-metadata-request', cloud: 'GCP legacy metadata' },
  { name: 'x-aws-ec2-metadata-token', cloud: 'AWS IMDSv2' },
  { name: 'x-aws-ec2-metadata-token-ttl-seconds', cloud: 'AWS IMDSv2 token' },
  { name: 'metadata', cloud: 'Azure instance metadata (Metadata: true)' },
  { name: 'x-aliyun-ecs-metadata-token', cloud: 'Alibaba Cloud metadata' },
  { name: 'x-aliyun-ecs-metadata-token-ttl-seconds', cloud: 'Alibaba Cloud metadata token' },
];

/**
 * Why a set of request headers is refused, or undefined when none is a metadata header. The header is refused
 * whatever its value, so "Metadata: True " cannot slip past a value match.
 */
export function metadataHeaderProblem(headers: Record<string, string>): string | undefined {
  for (const name of Object.keys(headers)) {
    const found = METADATA_HEADERS.find((header) => header.name === name.trim().toLowerCase());
    if (found) {
      return (
        `the ${name} header is only for ${found.cloud}: it serves to read instance metadata and ` +
        'credentials, so it is never sent'
      );
    }
  }
  return undefined;
}
