"""A chart in the house style (read by the model as text; the skill machinery never runs it)."""
import matplotlib.pyplot as plt

plt.style.use("tableau-colorblind10")
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(months, revenue, marker="o", label="Revenue")  # noqa: F821 - filled in by the analysis
ax.set_xlabel("Month")
ax.set_ylabel("Revenue (EUR)")
ax.set_title("Revenue grew every month of 2024")
ax.legend()
fig.tight_layout()
plt.show()
