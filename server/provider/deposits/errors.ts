// What the deposit core throws for the routes to answer, each in its own words (route-answers.ts).

/** Thrown when a deposit with the requested depositId exists already (the checkout race). */
export class DepositIdTaken extends Error {}
export class DepositNotFound extends Error {}
export class DepositNotPending extends Error {
  constructor(readonly status: string) {
    super(`Deposit is ${status}`);
  }
}
