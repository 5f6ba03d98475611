import { z } from '../../util/zod.js';

/** A host's name: it labels containers and journal entries, so it is short and shell-safe. */
export const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

const path = (what: string) =>
  z.string({ error: `give the path of ${what} as text (relative to the hosts file)` }).min(1, `give the path of ${what}`);

const tlsSchema = z
  .object({
    ca: path("the CA certificate that signed the engine's certificate"),
    cert: path("this client's certificate"),
    key: path("this client's private key"),
  })
  .strict();

const hostSchema = z
  .object({
    name: z
      .string({ error: 'give each host a name, e.g. lab-pc-1' })
      .regex(HOST_NAME, 'a name is 1-32 letters, digits, ".", "_" or "-", starting with a letter or digit, e.g. lab-pc-1'),
    engine: z
      .string({ error: 'give the Docker engine as a URL: tcp://HOST:2376, ssh://USER@HOST or unix:///var/run/docker.sock' })
      .min(1, 'give the Docker engine as a URL: tcp://HOST:2376, ssh://USER@HOST or unix:///var/run/docker.sock'),
    tls: tlsSchema.optional(),
    tunnelAddress: z.ipv4({ error: "give the IPv4 address the run's host sends this host's VXLAN traffic to, e.g. 10.0.0.11" }).optional(),
    cores: z
      .number({ error: 'give a whole number of cores, e.g. 4' })
      .int('give a whole number of cores, e.g. 4')
      .positive('at least 1')
      .optional(),
  })
  .strict();

/** The file as written: `hosts:`, a list of hosts. */
export const hostsFileSchema = z
  .object({
    hosts: z.array(hostSchema, { error: 'list the hosts under hosts:, each with name and engine' }).min(1, 'list at least one host'),
  })
  .strict();

export type HostsFileWritten = z.infer<typeof hostsFileSchema>;

/** The fields a host may have, for "did you mean" on an unknown key. */
export const HOST_FIELDS = ['name', 'engine', 'tls', 'tunnelAddress', 'cores'];
export const TLS_FIELDS = ['ca', 'cert', 'key'];
