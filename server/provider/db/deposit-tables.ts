// Tables of deposits, checkouts and their history (migration 002_deposits).
export interface DepositTables {}
