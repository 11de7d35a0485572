"""The *Budgets* screen: the spending caps in force, what is left of each, and the admin's caps."""
