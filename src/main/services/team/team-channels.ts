// What the team channels of the contract do where Paydesk runs: on a team server they are its
// people and sessions (TeamService); on a desk, its link to a team server (TeamLink, when it has
// one), and everything else about people is the team server's to answer.
import type { TeamConnectInput, TeamPolicy, TeamSession, TeamSessionRow, TeamUser, TeamRole } from '../../../shared/contract';
import { ServiceError } from '../errors';
import type { TeamService } from './team-service';

export interface TeamChannels {
  session(): Promise<TeamSession>;
  connect(input: TeamConnectInput): Promise<TeamSession>;
  disconnect(): Promise<TeamSession>;
  listUsers(): Promise<{ users: TeamUser[] }>;
  createUser(input: { username: string; displayName: string; role: TeamRole; password: string }): Promise<TeamUser>;
  updateUser(input: { id: string; displayName?: string | undefined; role?: TeamRole | undefined; disabled?: boolean | undefined }): Promise<TeamUser>;
  resetPassword(input: { id: string; password: string }): Promise<TeamUser>;
  changePassword(input: { current: string; password: string }): Promise<TeamSession>;
  listSessions(): Promise<{ sessions: TeamSessionRow[] }>;
  revokeSession(id: string): Promise<{ revoked: boolean }>;
  updatePolicy(patch: Partial<TeamPolicy>): Promise<TeamPolicy>;
  startTotp(): Promise<{ secret: string; uri: string }>;
  confirmTotp(code: string): Promise<TeamSession>;
  disableTotp(code: string): Promise<TeamSession>;
}

/** A desk's part: its link to a team server (connect, disconnect, who is signed in there). */
export interface DeskTeamLink {
  session(): Promise<TeamSession>;
  connect(input: TeamConnectInput): Promise<TeamSession>;
  disconnect(): Promise<TeamSession>;
}

export const DESK_SESSION: TeamSession = { mode: 'desk', person: null, server: null, policy: null, expiresAt: null, lostBecause: null };

export function serverTeamChannels(team: TeamService): TeamChannels {
  const itself = async (): Promise<never> => {
    throw new ServiceError('conflict', 'This is the team server itself: a desk connects to it from its Settings.');
  };
  return {
    session: () => team.sessionView(),
    connect: itself,
    disconnect: itself,
    listUsers: () => team.listUsers(),
    createUser: (input) => team.createUser(input),
    updateUser: (input) => team.updateUser(input),
    resetPassword: (input) => team.resetPassword(input),
    changePassword: (input) => team.changePassword(input),
    listSessions: () => team.listSessions(),
    revokeSession: (id) => team.revokeSession(id),
    updatePolicy: (patch) => team.updatePolicy(patch),
    startTotp: () => team.startTotp(),
    confirmTotp: (code) => team.confirmTotp(code),
    disableTotp: (code) => team.disableTotp(code),
  };
}

export function deskTeamChannels(link?: DeskTeamLink): TeamChannels {
  const serversOnly = async (): Promise<never> => {
    throw new ServiceError('unavailable', 'People, roles and sessions live on a team server: connect to one in Settings → Team server.');
  };
  return {
    session: () => link?.session() ?? Promise.resolve(DESK_SESSION),
    connect: (input) => (link ? link.connect(input) : serversOnly()),
    disconnect: () => link?.disconnect() ?? Promise.resolve(DESK_SESSION),
    listUsers: serversOnly,
    createUser: serversOnly,
    updateUser: serversOnly,
    resetPassword: serversOnly,
    changePassword: serversOnly,
    listSessions: serversOnly,
    revokeSession: serversOnly,
    updatePolicy: serversOnly,
    startTotp: serversOnly,
    confirmTotp: serversOnly,
    disableTotp: serversOnly,
  };
}
