import type { JournalEntry, Undoer } from '../journal/journal.js';
import { HOSTNET_KINDS } from '../journal/kinds.js';
import type { HostNetOps } from './hostnet-port.js';
import type { IptablesRule, NetnsTarget } from './operation-schema.js';

export interface LinkUndo {
  name: string;
}
export interface LinksUndo {
  names: string[];
  group?: number;
}
export interface NetnsUndo {
  name: string;
}
export interface IptablesUndo {
  rule: IptablesRule;
  netns?: NetnsTarget;
}
export interface DeviceLinkUndo {
  name: string;
  bridge: string;
  wasUp: boolean;
}
export interface IptablesSetUndo {
  rules: IptablesRule[];
  netns?: NetnsTarget;
}

/** Idempotent inverses, keyed by journal kind; merge with other modules' undoers for teardown. */
export function hostNetUndoers(ops: HostNetOps): Record<string, Undoer> {
  return {
    [HOSTNET_KINDS.link]: async (e: JournalEntry) => {
      await ops.run({ op: 'delete-link', name: (e.undo as unknown as LinkUndo).name });
    },
    [HOSTNET_KINDS.links]: async (e: JournalEntry) => {
      const u = e.undo as unknown as LinksUndo;
      await ops.run({ op: 'delete-links', names: u.names, ...(u.group !== undefined ? { group: u.group } : {}) });
    },
    [HOSTNET_KINDS.netns]: async (e: JournalEntry) => {
      await ops.run({ op: 'delete-netns', name: (e.undo as unknown as NetnsUndo).name });
    },
    [HOSTNET_KINDS.iptables]: async (e: JournalEntry) => {
      const u = e.undo as unknown as IptablesUndo;
      await ops.run({ op: 'iptables-delete', rule: u.rule, ...(u.netns ? { netns: u.netns } : {}) });
    },
    [HOSTNET_KINDS.deviceLink]: async (e: JournalEntry) => {
      const u = e.undo as unknown as DeviceLinkUndo;
      await ops.run({ op: 'leave-bridge', name: u.name, bridge: u.bridge, down: !u.wasUp });
    },
    [HOSTNET_KINDS.iptablesSet]: async (e: JournalEntry) => {
      const u = e.undo as unknown as IptablesSetUndo;
      await ops.run({ op: 'iptables-delete-all', rules: u.rules, ...(u.netns ? { netns: u.netns } : {}) });
    },
  };
}
