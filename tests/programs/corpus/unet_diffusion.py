"""One diffusion training step after another, the way DDPM-style trainers do it: a small conv
UNet conditioned on a sinusoidal timestep embedding, random images, noise added at a random
timestep, the noise predicted, an MSE loss, backward, an optimizer step."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T = 100
betas = torch.linspace(1e-4, 0.02, T)
alphas_cumprod = torch.cumprod(1 - betas, dim=0)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.norm1 = nn.GroupNorm(4, cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.temb = nn.Linear(tdim, cout)
        self.norm2 = nn.GroupNorm(4, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.temb(temb)[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return h + self.skip(x)


class UNet(nn.Module):
    def __init__(self, ch=16, tdim=32):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.inc = nn.Conv2d(3, ch, 3, padding=1)
        self.down1 = ResBlock(ch, ch, tdim)
        self.down2 = ResBlock(ch, 2 * ch, tdim)
        self.mid = ResBlock(2 * ch, 2 * ch, tdim)
        self.up2 = ResBlock(4 * ch, ch, tdim)
        self.up1 = ResBlock(2 * ch, ch, tdim)
        self.out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x, t):
        temb = self.time_mlp(timestep_embedding(t, self.tdim))
        h0 = self.inc(x)
        h1 = self.down1(h0, temb)
        h2 = self.down2(F.avg_pool2d(h1, 2), temb)
        m = self.mid(h2, temb)
        u2 = self.up2(torch.cat([m, h2], dim=1), temb)
        u1 = self.up1(torch.cat([F.interpolate(u2, scale_factor=2.0), h1], dim=1), temb)
        return self.out(u1)


model = UNet()
model = torch.compile(model, backend="aot_eager")
optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
for step in range(4):
    x0 = torch.randn(8, 3, 16, 16)
    t = torch.randint(0, T, (x0.shape[0],))
    noise = torch.randn_like(x0)
    a = alphas_cumprod[t].view(-1, 1, 1, 1)
    xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
    loss = F.mse_loss(model(xt, t), noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
