// Positions for the real-time wifi channel: the host orchestrator sends one UDP datagram per car
// per physics step to 127.0.0.1, "P <node> <x> <y> <vx> <vy>", and a reader thread hands each to
// the simulator thread (ScheduleWithContext is the one thread-safe call of the real-time simulator).
#pragma once

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace cavsim
{

inline void
SetNodeMotion(ns3::Ptr<ns3::Node> node, double x, double y, double vx, double vy, double z)
{
    auto m = node->GetObject<ns3::ConstantVelocityMobilityModel>();
    m->SetPosition(ns3::Vector(x, y, z));
    m->SetVelocity(ns3::Vector(vx, vy, 0));
}

// Binds 127.0.0.1 on an ephemeral port and returns it; the feed runs until the process ends.
inline uint16_t
StartPositionFeed(const ns3::NodeContainer& nodes, double antennaHeight)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    {
        throw std::runtime_error("cannot bind the position feed socket on 127.0.0.1");
    }
    std::thread([fd, nodes, antennaHeight]() {
        char buffer[256];
        for (;;)
        {
            ssize_t n = recv(fd, buffer, sizeof(buffer) - 1, 0);
            if (n <= 0)
            {
                continue;
            }
            buffer[n] = '\0';
            std::istringstream in(buffer);
            char op = 0;
            uint32_t node = 0;
            double x, y, vx, vy;
            if (!(in >> op >> node >> x >> y >> vx >> vy) || op != 'P' || node >= nodes.GetN())
            {
                continue; // not a position: ignored, as stray traffic is
            }
            ns3::Simulator::ScheduleWithContext(node, ns3::Seconds(0), &SetNodeMotion, nodes.Get(node), x, y, vx, vy, antennaHeight);
        }
    }).detach();
    return ntohs(address.sin_port);
}

} // namespace cavsim
