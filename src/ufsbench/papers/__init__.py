"""Code one paper's reproduction uses: its tables, figures and protocol variants."""
