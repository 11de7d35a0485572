"""The *Automatic sync* screen: what each site syncs, the pause switches, what is pending."""
