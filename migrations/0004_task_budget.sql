-- How many `task` calls each (child) session has made, for nested-delegation budgets.
CREATE TABLE task_budget (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    used        INTEGER NOT NULL
);
