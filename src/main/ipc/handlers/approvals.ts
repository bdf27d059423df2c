import type { approvalsContract } from '../../../shared/contract';
import type { ApprovalPoliciesService } from '../../services/approvals/approval-policies';
import type { ApprovalService } from '../../services/approvals/approval-service';
import type { Handlers } from '../dispatcher';

export function approvalsHandlers({ approvals, approvalPolicies }: { approvals: ApprovalService; approvalPolicies: ApprovalPoliciesService }): Pick<Handlers, keyof typeof approvalsContract.invoke> {
  return {
    'approvals:policies': () => approvalPolicies.list(),
    'approvals:set-policy': (input) => approvalPolicies.set(input),
    'approvals:remove-policy': ({ environment, currency }) => approvalPolicies.remove(environment, currency),
    'approvals:set-expiry': ({ hours }) => approvalPolicies.setExpiry(hours),
    'approvals:request-payout': (input) => approvals.requestPayout(input),
    'approvals:request-batch': (input) => approvals.requestBatch(input),
    'approvals:list': (input) => approvals.list(input),
    'approvals:get': ({ id }) => approvals.get(id),
    'approvals:approve': (input) => approvals.approve(input),
    'approvals:reject': (input) => approvals.reject(input),
    'approvals:withdraw': (input) => approvals.withdraw(input),
  };
}
