// Tables of login verification, the sandbox mailbox and recipients (migration 003_accounts).
export interface AccountTables {}
